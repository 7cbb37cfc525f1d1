// The module hook of loopback-only.mjs: partykit's bundle hands workerd the address to listen on
// as a literal; it is rewritten to loopback as the bundle loads. If a partykit release words it
// differently, nothing is rewritten and a warning says so.
const PARTYKIT_BIN = /\/partykit\/dist\/bin\.mjs$/;
const ALL_INTERFACES = 'host: "0.0.0.0"';

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!PARTYKIT_BIN.test(url)) return loaded;
  const source = String(loaded.source);
  if (!source.includes(ALL_INTERFACES)) {
    process.emitWarning("partykit dev's listening address was not found in its bundle: it may listen on every interface");
    return loaded;
  }
  return { ...loaded, source: source.replaceAll(ALL_INTERFACES, 'host: "127.0.0.1"') };
}
