// Terminal styling, only when writing to a terminal that wants it (https://no-color.org).
const enabled = (stream: NodeJS.WriteStream) => stream.isTTY === true && !process.env.NO_COLOR;

function style(open: number, close: number) {
  return (text: string, stream: NodeJS.WriteStream = process.stdout) => (enabled(stream) ? `\x1b[${open}m${text}\x1b[${close}m` : text);
}

export const bold = style(1, 22);
export const dim = style(2, 22);
export const green = style(32, 39);
export const yellow = style(33, 39);
export const red = style(31, 39);
export const cyan = style(36, 39);
