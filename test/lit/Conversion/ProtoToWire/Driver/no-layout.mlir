// ProtoToWire.cpp, the pass driver: the codecs address fields by the
// layout's offsets, so a schema must be laid out first.
// RUN: pbc-opt %s -proto-to-wire -verify-diagnostics

proto.file "a.proto" package "" proto3 imports []
// expected-error@+1 {{'proto.message' op has no layout; run -proto-layout first}}
proto.message @M file "a.proto" {
  proto.field "n" = 1 : int32 implicit
}
