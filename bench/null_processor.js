// The floor of an ext_proc exchange on another runtime: the null processor of
// bench/null_processor.py on Node's HTTP/2 (nghttp2, in C) through @grpc/grpc-js, for
// `make exchange-floor`. It decodes nothing: the replies, and the first byte that marks a
// message as request headers, are given by bench/exchange_floor.py from our own protos.
//
//   node bench/null_processor.js PORT HEADERS_TAG HEADERS_REPLY BODY_REPLY SERVING
//   (the tag a decimal byte; the replies and the health answer in hex)
'use strict';
const grpc = require('@grpc/grpc-js');

const [port, headersTag, headersReply, bodyReply, serving] = process.argv.slice(2);
const tag = Number(headersTag);
const hex = (text) => Buffer.from(text, 'hex');
const raw = (bytes) => bytes;
const onHeaders = hex(headersReply);
const onBody = hex(bodyReply);

const server = new grpc.Server();
server.register('/envoy.service.ext_proc.v3.ExternalProcessor/Process', (call) => {
  call.on('data', (message) => {
    if (message[0] === tag) {
      call.write(onHeaders);
    } else {  // the body: answered, then the clean close
      call.write(onBody);
      call.end();
    }
  });
  call.on('end', () => call.end());
  call.on('error', () => {});
}, raw, raw, 'bidi');
server.register('/grpc.health.v1.Health/Check',
  (call, callback) => callback(null, hex(serving)), raw, raw, 'unary');
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) {
    console.error(error.message);
    process.exit(1);
  }
});
