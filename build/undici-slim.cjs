// The parts of undici hel uses (an Agent for the model client's connections and timeouts, and the
// fetch that runs over it), for the bundle. undici's index also loads its mock agents, caches,
// WebSocket, EventSource and cookie helpers, and the cookie helpers touch Node's global Headers,
// which loads Node's own copy of undici: together ~40 ms of start-up that hel never uses.
"use strict";
module.exports = {
  Agent: require("undici/lib/dispatcher/agent.js"),
  fetch: require("undici/lib/web/fetch/index.js").fetch,
  Headers: require("undici/lib/web/fetch/headers.js").Headers,
};
