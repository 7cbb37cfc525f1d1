// The floor of bench/sections/cpu.ts: a Worker that answers "hello" and does nothing else, run by
// the same wrangler the same way (`wrangler dev`), so its CPU per call is the runtime's own.
export default {
  fetch(): Response {
    return new Response("hello");
  },
};
