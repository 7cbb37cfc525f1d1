// Loaded into Prism's process by test/setup/prism.ts (NODE_OPTIONS=--import). Prism forwards with
// node-fetch on Node's global agent, which keeps connections alive: under a burst of concurrent
// calls a forward can be written to a kept connection just as the Worker's workerd closes it, and
// Prism answers 500 "socket hang up" for a request the Worker never saw (a contract run's flake,
// the same race test/helpers/worker.ts describes between wrangler's proxy and workerd). A
// connection per forward leaves no kept connection to race with.
import http from "node:http";

http.globalAgent = new http.Agent({ keepAlive: false });
