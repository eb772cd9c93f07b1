// The floor of an ext_proc exchange on another runtime: the null processor of
// bench/null_processor.py on Node's HTTP/2 (nghttp2, in C) through @grpc/grpc-js, for
// `make exchange-floor`. It decodes nothing: the replies, the first byte that marks a message as
// request headers, and the health checks it answers are given by bench/exchange_floor.py from our
// own protos. That first byte is the tag of the message's oneof: Envoy serializes fields in field
// order, and every field numbered below request_headers (2) is reserved.
//
//   node bench/null_processor.js PORT HEADERS_TAG HEADERS_REPLY BODY_REPLY SERVING CHECK...
//   (the tag a decimal byte; the replies, the health answer and the checks it answers in hex)
'use strict';
const grpc = require('@grpc/grpc-js');

const [port, headersTag, headersReply, bodyReply, serving, ...checks] = process.argv.slice(2);
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
server.register('/grpc.health.v1.Health/Check', (call, callback) => {
  if (checks.includes(call.request.toString('hex'))) {
    callback(null, hex(serving));
  } else {
    callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
  }
}, raw, raw, 'unary');
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) {
    console.error(error.message);
    process.exit(1);
  }
});
