// The part of undici hel uses, for the bundle: an Agent for the model client's connections and
// timeouts, the connector it makes them with (model/early-connection.ts opens one early), with the
// `request` API that model/dispatcher-fetch.ts sends through, and the redirect interceptor composed
// onto it. undici's index also loads its fetch, mock agents, caches, WebSocket, EventSource and
// cookie helpers, and the cookie helpers touch Node's global Headers, which loads Node's own copy of
// undici: ~60 ms of start-up that hel never uses.
"use strict";
const Dispatcher = require("undici/lib/dispatcher/dispatcher.js");

// What undici's index does for all of its APIs (Object.assign(Dispatcher.prototype, api)), for the
// one hel calls.
Dispatcher.prototype.request = require("undici/lib/api/api-request.js");

module.exports = {
  Agent: require("undici/lib/dispatcher/agent.js"),
  buildConnector: require("undici/lib/core/connect.js"),
  interceptors: { redirect: require("undici/lib/interceptor/redirect.js") },
};
