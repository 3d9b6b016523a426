// DecodeFields.cpp: which varints are read as `rare_long` (their forms of
// three bytes and more out of line): every singular value, and a repeated
// bool's or enum's elements; a repeated integer's elements keep the inlined
// word-wide read.
// RUN: pbc-opt %s -proto-layout -proto-to-wire | FileCheck %s

proto.file "r.proto" package "" proto3 imports []
proto.enum @Kind file "r.proto" {
  proto.enum_value "NONE" = 0
  proto.enum_value "SOME" = 1
}
proto.message @R file "r.proto" {
  proto.field "flag" = 1 : bool implicit
  proto.field "kind" = 2 : enum<@Kind> implicit
  proto.field "count" = 3 : int64 implicit
  proto.field "flags" = 4 : bool repeated packed
  proto.field "counts" = 5 : int64 repeated packed
}

// The fast entries' unchecked reads in field order (flag, kind, count, an
// unpacked element of flags, of counts), then the checked reads near the
// end of the input (flag, kind, count, an element of flags), the packed run
// of flags (checked near the run's end, unchecked before), the checked
// unpacked element of counts, and the packed run of counts.
// CHECK-LABEL: llvm.func @pbc__R_dec(
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked rare_long{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}}{{[0-9]}}{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}}{{[0-9]}}{{$}}
// CHECK: wire.get_varint %{{.*}}, %{{.*}}, %{{.*}} unchecked{{$}}
// CHECK-LABEL: llvm.func @R_decode(
