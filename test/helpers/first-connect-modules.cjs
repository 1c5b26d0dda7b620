// Preloaded into hel by a test (NODE_OPTIONS=--require): at the process's first outgoing connection,
// which is its first model request, writes the built-in modules loaded so far to
// $HEL_TEST_MODULES_FILE, then the bundle's chunks opened so far, each as "chunk <file name>".
const net = require("node:net");
const fs = require("node:fs");
const { basename } = require("node:path");
const { writeFileSync } = fs;

// The chunk loader opens each chunk by its path before reading it.
const chunks = [];
const openSync = fs.openSync;
fs.openSync = function (path, ...rest) {
  if (typeof path === "string" && path.endsWith(".cjs")) chunks.push(`chunk ${basename(path)}`);
  return openSync.call(this, path, ...rest);
};

const connect = net.Socket.prototype.connect;
let written = false;
net.Socket.prototype.connect = function (...args) {
  if (!written) {
    written = true;
    writeFileSync(process.env.HEL_TEST_MODULES_FILE, [...process.moduleLoadList, ...chunks].join("\n"));
  }
  return connect.apply(this, args);
};
