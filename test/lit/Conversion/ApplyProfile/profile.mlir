// proto-apply-profile: a message's instances and field reads become its
// `profile` (0 when the payloads never held one), a field's likeliest other successor
// its `followed_by`; the profile's fields and messages the schema lacks are
// ignored. A profile may have several roots (good.profile: p.Hot and
// p.Other).
// RUN: pbc-opt %s -proto-apply-profile="profile=%S/Inputs/good.profile" | FileCheck %s
// RUN: pbc-opt %s -proto-apply-profile="profile=%S/Inputs/stranger.profile" 2>&1 | FileCheck %s --check-prefix=STRANGER
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/missing.profile" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/version.profile" 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/orphan.profile" 2>&1 | FileCheck %s --check-prefix=ORPHAN
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/pair.profile" 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/number.profile" 2>&1 | FileCheck %s --check-prefix=BADNUM
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/twice.profile" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not pbc-opt %s -proto-apply-profile="profile=%S/Inputs/rootless.profile" 2>&1 | FileCheck %s --check-prefix=ROOTLESS

proto.file "p.proto" package "p" proto2 imports []
// Field 1: only 3 follows it. 2: only the end, so no followed_by. 3:
// itself (a run) twice, then 2 and 4 once each: the tie goes to the lower.
// 4: 2. Field 9 is not the schema's.
// Its 2 instances and 9 reads.
// CHECK-LABEL: proto.message @p.Hot file "p.proto" profile 11 {
// CHECK-NEXT: proto.field "a" = 1 : int32 optional followed_by 3
// CHECK-NEXT: proto.field "b" = 2 : string optional{{$}}
// CHECK-NEXT: proto.field "c" = 3 : int32 repeated followed_by 2
// CHECK-NEXT: proto.field "d" = 4 : int32 optional followed_by 2
// CHECK-NEXT: proto.field "e" = 5 : int32 optional{{$}}
proto.message @p.Hot file "p.proto" {
  proto.field "a" = 1 : int32 optional
  proto.field "b" = 2 : string optional
  proto.field "c" = 3 : int32 repeated
  proto.field "d" = 4 : int32 optional
  proto.field "e" = 5 : int32 optional
}
// CHECK-LABEL: proto.message @p.Cold file "p.proto" profile 0 {
// CHECK-NEXT: proto.field "x" = 1 : int32 optional{{$}}
proto.message @p.Cold file "p.proto" {
  proto.field "x" = 1 : int32 optional
}

// STRANGER: warning: the profile '{{.*}}stranger.profile' names none of the schema's messages (its roots: q.Other)
// STRANGER: proto.message @p.Hot file "p.proto" profile 0 {
// MISSING: error: cannot read the profile '{{.*}}missing.profile': No such file or directory
// VERSION: error: {{.*}}version.profile:1: not a pbc profile (its first line is not 'pbc-profile 1')
// ORPHAN: error: {{.*}}orphan.profile:3: a field before any message
// PAIR: error: {{.*}}pair.profile:4: expected NUMBER:COUNT, not '2=1'
// BADNUM: error: {{.*}}number.profile:3: expected 'message NAME instances N reads N'
// TWICE: error: {{.*}}twice.profile:5: field 1 is listed twice
// ROOTLESS: error: {{.*}}rootless.profile:2: a message before any root
