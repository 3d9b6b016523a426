// Every wire verifier rejects what its lowering could not handle.
// RUN: pbc-opt %s -split-input-file -verify-diagnostics

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // expected-error@+1 {{expects a tag of 1 to 5 bytes, not 0}}
  %0 = wire.expect_tag %p, %end, ""
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // expected-error@+1 {{expects a tag of 1 to 5 bytes, not 6}}
  %0 = wire.expect_tag %p, %end, "\80\80\80\80\80\01"
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // expected-error@+1 {{expects a varint: byte 0 has its continuation bit clear}}
  %0 = wire.expect_tag %p, %end, "\08\01"
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // expected-error@+1 {{expects a varint: byte 1 has its continuation bit set}}
  %0 = wire.expect_tag %p, %end, "\88\81"
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // Field number 0.
  // expected-error@+1 {{expects a tag: a field number from 1 and a wire type from 0 to 5, not 2}}
  %0 = wire.expect_tag %p, %end, "\02"
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %end: !llvm.ptr) {
  // Wire type 7.
  // expected-error@+1 {{expects a tag: a field number from 1 and a wire type from 0 to 5, not 15}}
  %0 = wire.expect_tag %p, %end, "\0F"
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr) {
  // expected-error@+1 {{writes no bytes}}
  %0 = wire.put_bytes %p, ""
  llvm.return
}

// -----

llvm.func @f(%p: !llvm.ptr, %v: i64) {
  // expected-error@+1 {{has an empty prefix}}
  %0 = wire.put_varint %p, %v prefix ""
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr) {
  %d = wire.decoder %state
  // expected-error@+1 {{status 0 is not a decoding error}}
  %0 = wire.fail %d, 0
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr) {
  %d = wire.decoder %state
  // PBC_ERR_BUFFER_TOO_SMALL is the encoder's.
  // expected-error@+1 {{status 11 is not a decoding error}}
  %0 = wire.fail %d, 11
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr) {
  %d = wire.decoder %state
  // expected-error@+1 {{status 14 is not a decoding error}}
  %0 = wire.fail %d, 14
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr) {
  %d = wire.decoder %state
  // expected-error@+1 {{allocates nothing}}
  %0 = wire.alloc %d, 0
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr, %p: !llvm.ptr, %n: i64) {
  %d = wire.decoder %state
  // expected-error@+1 {{has elements of 0 bytes}}
  %0 = wire.grow %d, %p, %n, %n, 0
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr, %u: !llvm.ptr, %n: i64) {
  %d = wire.decoder %state
  // expected-error@+1 {{field number 0 is out of range [1, 536870911]}}
  %0 = wire.keep_unknown_varint %d, %u, %n, 0
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr, %u: !llvm.ptr, %n: i64) {
  %d = wire.decoder %state
  // expected-error@+1 {{field number 536870912 is out of range [1, 536870911]}}
  %0 = wire.keep_unknown_varint %d, %u, %n, 536870912
  llvm.return
}

// -----

// The decoder state is a !wire.decoder, not any pointer.
// expected-note@+1 {{prior use here}}
llvm.func @f(%state: !llvm.ptr, %end: !llvm.ptr) {
  // expected-error@+1 {{use of value '%state' expects different type than prior uses: '!wire.decoder' vs '!llvm.ptr'}}
  %0 = wire.read_limit %state, %end
  llvm.return
}

// -----

llvm.func @f(%state: !llvm.ptr, %n: i64) {
  // expected-note@+1 {{prior use here}}
  %d = wire.decoder %state
  // A writer op takes a writer, not a decoder.
  // expected-error@+1 {{use of value '%d' expects different type than prior uses: '!wire.writer' vs '!wire.decoder'}}
  wire.write_varint %d, %n
  llvm.return
}
