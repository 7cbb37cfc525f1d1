// Loaded into `partykit dev`'s Node process (NODE_OPTIONS=--import) by `npm run dev`: keeps every
// server it opens on loopback. partykit dev listens on all interfaces: its Node side (a debugger
// on :9229 that can read the room's secret and run code in it, an asset server) through Node's
// net.Server, and its workerd (the room on :1999) from a hard-coded "0.0.0.0" in its bundle. A
// development machine on a shared network must not offer either to its neighbours.
import { register } from "node:module";
import net from "node:net";

const LOOPBACK = "127.0.0.1";
const ANY = new Set([undefined, null, "", "0.0.0.0", "::"]);

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if (first !== null && typeof first === "object" && !("fd" in first) && !("path" in first)) {
    if (ANY.has(first.host)) args[0] = { ...first, host: LOOPBACK };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof second !== "string") args.splice(1, 0, LOOPBACK);
    else if (ANY.has(second)) args[1] = LOOPBACK;
  }
  return listen.apply(this, args);
};

register("./loopback-hooks.mjs", import.meta.url);
