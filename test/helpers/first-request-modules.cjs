// Preloaded into hel by a test (NODE_OPTIONS=--require): when the process sends its first model
// request, writes the built-in modules loaded so far to $HEL_TEST_MODULES_FILE, then the bundle's
// chunks opened so far, each as "chunk <file name>".
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

// The request's head is the first thing written on the API's connection, which opens earlier
// (src/model/early-connection.ts), while the project is read.
const write = net.Socket.prototype.write;
let written = false;
net.Socket.prototype.write = function (chunk, ...rest) {
  if (!written && (typeof chunk === "string" || Buffer.isBuffer(chunk)) && /^POST /.test(chunk.toString("latin1", 0, 5))) {
    written = true;
    writeFileSync(process.env.HEL_TEST_MODULES_FILE, [...process.moduleLoadList, ...chunks].join("\n"));
  }
  return write.call(this, chunk, ...rest);
};
