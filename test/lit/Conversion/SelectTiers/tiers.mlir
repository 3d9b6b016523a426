// proto-select-tiers: the command line, then a file's optimize_for, then
// the code budget (estimates: 3072 bytes a message, 1408 a field, 2304 a
// repeated message field) decide each message's tier.
// RUN: pbc-opt %s -split-input-file -verify-diagnostics -proto-select-tiers | FileCheck %s
// RUN: pbc-opt %s -split-input-file -verify-diagnostics -proto-select-tiers="code-budget=5000" | FileCheck %s --check-prefix=SMALL
// RUN: pbc-opt %s -split-input-file -verify-diagnostics -proto-select-tiers="optimize-for=speed code-budget=0" | FileCheck %s --check-prefix=SPEED
// RUN: pbc-opt %s -split-input-file -verify-diagnostics -proto-select-tiers="optimize-for=lite-runtime" | FileCheck %s --check-prefix=LITE
// RUN: not pbc-opt %s -split-input-file -proto-select-tiers="optimize-for=fast" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown optimize-for 'fast': expected speed, code-size or lite-runtime

// A file's option wins over the budget; the command line over both.
// LITE_RUNTIME is compact without names: tier lite.
// CHECK-LABEL: proto.message @fast.A file "fast.proto" tier specialized
// CHECK-LABEL: proto.message @small.B file "small.proto" tier compact
// CHECK-LABEL: proto.message @lite.C file "lite.proto" tier lite
// CHECK-LABEL: proto.message @plain.D file "plain.proto" tier specialized
// SMALL-LABEL: proto.message @plain.D file "plain.proto" tier specialized
// SPEED-COUNT-4: tier specialized
// LITE-COUNT-4: tier lite
proto.file "fast.proto" package "fast" proto2 optimize_for speed imports []
proto.file "small.proto" package "small" proto3 optimize_for code_size imports []
proto.file "lite.proto" package "lite" proto3 optimize_for lite_runtime imports []
proto.file "plain.proto" package "plain" proto3 imports []
proto.message @fast.A file "fast.proto" {
  proto.field "x" = 1 : int32 optional
}
proto.message @small.B file "small.proto" {
  proto.field "x" = 1 : int32 implicit
}
proto.message @lite.C file "lite.proto" {
}
proto.message @plain.D file "plain.proto" {
  proto.field "x" = 1 : int32 implicit
}

// -----

// Over the budget, the largest files go compact until the rest fits. The
// estimates: big 2 * 3,072 + 1,408 + 2,304 + 1,408 = 11,264; mid and tiny
// 4,480 each. All three fit the default budget; with 5,000, big goes, then
// mid (of two equal estimates, the first by name), and tiny fits.
// CHECK-LABEL: proto.message @big.A file "big.proto" tier specialized
// CHECK-LABEL: proto.message @big.B file "big.proto" tier specialized
// CHECK-LABEL: proto.message @mid.C file "mid.proto" tier specialized
// CHECK-LABEL: proto.message @tiny.D file "tiny.proto" tier specialized
// SMALL-LABEL: proto.message @big.A file "big.proto" tier compact
// SMALL-LABEL: proto.message @big.B file "big.proto" tier compact
// SMALL-LABEL: proto.message @mid.C file "mid.proto" tier compact
// SMALL-LABEL: proto.message @tiny.D file "tiny.proto" tier specialized
proto.file "big.proto" package "big" proto2 imports []
proto.file "mid.proto" package "mid" proto2 imports []
proto.file "tiny.proto" package "tiny" proto2 imports []
proto.message @big.A file "big.proto" {
  proto.field "x" = 1 : int32 optional
  proto.field "y" = 2 : message<@big.B> repeated
}
proto.message @big.B file "big.proto" {
  proto.field "z" = 1 : string optional
}
proto.message @mid.C file "mid.proto" {
  proto.field "x" = 1 : int32 optional
}
proto.message @tiny.D file "tiny.proto" {
  proto.field "x" = 1 : int32 optional
}
