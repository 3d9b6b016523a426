// lower-scf: scf.if and scf.for become cf blocks, lowered from the last op
// backwards (nested ops after their parent), so a block split moves only
// the ops up to the next structured op. The result is the same CFG
// convert-scf-to-cf builds.
// RUN: pbc-opt %s -split-input-file --pass-pipeline='builtin.module(llvm.func(lower-scf))' | FileCheck %s
// RUN: pbc-opt %s -split-input-file --pass-pipeline='builtin.module(llvm.func(lower-scf))' | FileCheck %s --check-prefix=NOSCF
// NOSCF-NOT: scf.

// Two ifs in a row, the first with a nested if: each becomes a diamond
// whose join block takes the result as an argument.
// CHECK-LABEL: llvm.func @ifs(
// CHECK-SAME: %[[C:[^:]*]]: i1, %[[D:[^:]*]]: i1, %[[X:[^:]*]]: i64)
// CHECK-NEXT:   cf.cond_br %[[C]], ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK:      ^[[THEN]]:
// CHECK-NEXT:   cf.cond_br %[[D]], ^[[IN_T:bb[0-9]+]], ^[[IN_E:bb[0-9]+]]
// CHECK:      ^[[IN_T]]:
// CHECK-NEXT:   cf.br ^[[IN_J:bb[0-9]+]](%[[X]] : i64)
// CHECK:      ^[[IN_E]]:
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   cf.br ^[[IN_J]](%[[ONE]] : i64)
// CHECK:      ^[[IN_J]](%[[N:.*]]: i64):
// CHECK:        cf.br ^[[J1:bb[0-9]+]](%[[N]] : i64)
// CHECK:      ^[[ELSE]]:
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   cf.br ^[[J1]](%[[ZERO]] : i64)
// CHECK:      ^[[J1]](%[[A:.*]]: i64):
// CHECK:        cf.cond_br %[[D]], ^[[T2:bb[0-9]+]], ^[[E2:bb[0-9]+]]
// CHECK:      ^[[T2]]:
// CHECK-NEXT:   %[[S:.*]] = arith.addi %[[A]], %[[X]] : i64
// CHECK-NEXT:   cf.br ^[[J2:bb[0-9]+]](%[[S]] : i64)
// CHECK:      ^[[E2]]:
// CHECK-NEXT:   cf.br ^[[J2]](%[[A]] : i64)
// CHECK:      ^[[J2]](%[[B:.*]]: i64):
// CHECK:        llvm.return %[[B]] : i64
llvm.func @ifs(%c: i1, %d: i1, %x: i64) -> i64 {
  %a = scf.if %c -> (i64) {
    %n = scf.if %d -> (i64) {
      scf.yield %x : i64
    } else {
      %one = arith.constant 1 : i64
      scf.yield %one : i64
    }
    scf.yield %n : i64
  } else {
    %z = arith.constant 0 : i64
    scf.yield %z : i64
  }
  %b = scf.if %d -> (i64) {
    %s = arith.addi %a, %x : i64
    scf.yield %s : i64
  } else {
    scf.yield %a : i64
  }
  llvm.return %b : i64
}

// -----

// A counted loop: header block with the induction variable and the
// carried value as arguments, a latch branching back.
// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME: %[[N:[^:]*]]: i64, %[[INIT:[^:]*]]: i64)
// CHECK:        cf.br ^[[HEAD:bb[0-9]+]](%{{.*}}, %[[INIT]] : i64, i64)
// CHECK:      ^[[HEAD]](%[[I:.*]]: i64, %[[ACC:.*]]: i64):
// CHECK-NEXT:   %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i64
// CHECK-NEXT:   cf.cond_br %[[LT]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK:      ^[[BODY]]:
// CHECK-NEXT:   %[[SUM:.*]] = arith.addi %[[ACC]], %[[I]] : i64
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i64
// CHECK-NEXT:   cf.br ^[[HEAD]](%[[NEXT]], %[[SUM]] : i64, i64)
// CHECK:      ^[[EXIT]]:
// CHECK-NEXT:   llvm.return %[[ACC]] : i64
llvm.func @loop(%n: i64, %x: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) : i64 {
    %s = arith.addi %acc, %i : i64
    scf.yield %s : i64
  }
  llvm.return %r : i64
}

// -----

// Ops the greedy order does not take (scf.while) still lower, through the
// conversion driver.
// CHECK-LABEL: llvm.func @while(
// CHECK:      ^[[WH:bb[0-9]+]](%[[W:.*]]: i64):
// CHECK-NEXT:   %[[WLT:.*]] = arith.cmpi ult, %[[W]], %{{.*}} : i64
// CHECK-NEXT:   cf.cond_br %[[WLT]], ^[[WB:bb[0-9]+]](%[[W]] : i64), ^[[WX:bb[0-9]+]]
// CHECK:        cf.br ^[[WH]](
llvm.func @while(%b: i64, %x: i64) -> i64 {
  %r = scf.while (%i = %b) : (i64) -> i64 {
    %lt = arith.cmpi ult, %i, %x : i64
    scf.condition(%lt) %i : i64
  } do {
  ^bb0(%j: i64):
    %k = arith.addi %j, %x : i64
    scf.yield %k : i64
  }
  llvm.return %r : i64
}
