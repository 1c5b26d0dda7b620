// Preloaded into hel by a test (NODE_OPTIONS=--require): at the process's first outgoing connection,
// which is its first model request, writes the built-in modules loaded so far to
// $HEL_TEST_MODULES_FILE.
const net = require("node:net");
const { writeFileSync } = require("node:fs");

const connect = net.Socket.prototype.connect;
let written = false;
net.Socket.prototype.connect = function (...args) {
  if (!written) {
    written = true;
    writeFileSync(process.env.HEL_TEST_MODULES_FILE, process.moduleLoadList.join("\n"));
  }
  return connect.apply(this, args);
};
