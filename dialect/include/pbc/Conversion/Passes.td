//===- Passes.td - pbc's passes ------------------------------*- tablegen -*-===//
//
// The pipeline (Pipeline.cpp), in order and by stage:
//   layout  proto-layout   decide each message's C struct layout
//                          (attributes on the proto ops; the header
//                          generator reads them too)
//           proto-apply-profile  (with a profile) what sample payloads held,
//                          as attributes on messages and fields
//           proto-select-tiers  specialized code or the table codec, per
//                          message
//   wire    proto-to-wire  build init/size/encode/decode functions from the
//                          schema, as llvm.func bodies of wire + scf +
//                          arith + llvm ops
//           canonicalize   wire folds: constant sizes, merged constant writes
//   LLVM    lower-scf      scf control flow to cf blocks, last op first
//           wire-to-llvm   expand wire ops into LLVM dialect and runtime calls
//           followed by MLIR's arith/cf conversions to the LLVM dialect.
// Canonicalize runs nested on each op of the module; lower-scf, the arith
// conversion and the final cast reconciliation on each function: in
// parallel.
//
//===----------------------------------------------------------------------===//
#ifndef PBC_CONVERSION_PASSES
#define PBC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ProtoLayout : Pass<"proto-layout", "mlir::ModuleOp"> {
  let summary = "Assign every message a C struct layout";
  let description = [{
    Presence bits first (`uint32_t _presence[n]` at offset 0), then the
    members sorted by alignment (largest first, declaration order within one
    alignment), each at its natural alignment, as a C compiler lays out the
    struct the header declares. Members are the fields, each oneof's union
    (all its fields at one offset) followed by its `uint32_t` case, and last
    the unknown fields (`pbc_bytes`, not in map entries). Adds `size`,
    `align`, `presence_words`, `unknown_offset` to messages, `case_offset`
    to oneofs and `offset`, `presence_bit` to fields. Targets with 64-bit
    pointers (LP64).
  }];
  let dependentDialects = ["pbc::proto::ProtoDialect"];
}

def ProtoApplyProfile : Pass<"proto-apply-profile", "mlir::ModuleOp"> {
  let summary = "Annotate the schema with a profile of sample payloads";
  let description = [{
    Reads `profile`, a file `pbc profile` wrote (pbc/Support/Profile.h), and
    sets every message's `profile` to the work the payloads did in messages
    of its type, their instances plus the fields read in them (0: none),
    and a field's `followed_by` to the
    other field of its message read most often right after it (ties: the
    lower number). Messages and fields the schema no longer has are
    ignored: a profile outlives schema changes; one that matches no message
    at all is a warning. A missing or malformed file is an error naming
    the line.
  }];
  let options = [
    Option<"profile", "profile", "std::string", "\"\"",
           "The profile file (pbc profile -o)">];
  let dependentDialects = ["pbc::proto::ProtoDialect"];
}

def ProtoSelectTiers : Pass<"proto-select-tiers", "mlir::ModuleOp"> {
  let summary = "Choose each message's tier: specialized code or table-driven";
  let description = [{
    Sets `tier` on every message. The `optimize-for` option, when given,
    decides for every file; otherwise a file's own `option optimize_for`
    does: SPEED specializes, CODE_SIZE makes its messages compact (entry
    points into the runtime's table codec), LITE_RUNTIME `lite` (compact,
    and their descriptions leave field and oneof names out). The files that
    say neither share `code-budget`: while the code they would take,
    estimated from their fields, exceeds it, the largest of them goes
    compact. Small schemas keep their speed; huge ones compile in seconds
    into little code. With a profile (proto-apply-profile), the messages of
    those files are chosen one by one instead, and the budget does not
    apply: the hottest, until together they hold 99.9% of those messages'
    work in the profile (instances and field reads), are specialized; the rest, every message
    the payloads never held among them, are compact. The module is the schema whose code one compilation
    generates, its imports included.
  }];
  let options = [
    Option<"optimizeFor", "optimize-for", "std::string", "\"\"",
           "speed, code-size or lite-runtime for every file, overriding "
           "their options (default: each file's option, else the budget)">,
    Option<"codeBudget", "code-budget", "uint64_t", "262144",
           "Estimated bytes of specialized code the files without an "
           "optimize_for option may take together">];
  let dependentDialects = ["pbc::proto::ProtoDialect"];
}

def ProtoToWire : Pass<"proto-to-wire", "mlir::ModuleOp"> {
  let summary = "Generate codec functions from the schema";
  let description = [{
    For each specialized message T of the laid-out schema, emits the C API (`T_init`,
    `T_is_initialized`, `T_decode`, `T_encoded_size`, `T_encode`, `T_write`),
    the internal codecs `pbc__T_dec` (a tag switch over the fields, every
    handler ending in an in-order expect-tag chain), `pbc__T_enc` (a
    backwards writer with hoisted room checks) and `pbc__T_wr` (T_write's
    chunk-or-forwards writer), the message's description (`pbc__T_desc`,
    pbc/desc.h: its fields, names, oneofs, defaults and links as constant
    data) and the `T_info` record pointing to it, listed in the `pbc_msgs`
    section; and each enum's `pbc__E_enum`. A compact message gets the same
    functions, each a call into the runtime's table codec with `T_info`.
    The proto ops are consumed.
  }];
  let options = [
    ListOption<"files", "files", "std::string",
               "Generate code for the messages of these .proto files only; "
               "the others are declared (default: all)">];
  let dependentDialects = [
    "pbc::wire::WireDialect", "mlir::LLVM::LLVMDialect",
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def LowerSCF : Pass<"lower-scf"> {
  let summary = "Lower scf control flow to cf blocks, last op first";
  let description = [{
    Applies MLIR's scf-to-cf patterns to `scf.if` and `scf.for` (what
    proto-to-wire builds) with the greedy driver, starting from the last one
    in the function. Lowering an `scf.if` splits its block, moving every op
    after it into the new block; going backwards, only the ops up to the
    next (already lowered) structured op move. `convert-scf-to-cf` goes
    forwards and records every moved op for rollback, so a function with
    thousands of sequential `scf.if`s (a message with thousands of fields)
    took gigabytes and quadratic time. Other scf ops, whose patterns need
    the conversion driver, are then converted the upstream way.
  }];
  let dependentDialects = ["mlir::cf::ControlFlowDialect"];
}

def WireToLLVM : Pass<"wire-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower wire ops to the LLVM dialect and runtime calls";
  let description = [{
    Varint sizes become a `ctlz` and a lookup in a 64-byte table; one-byte
    tags and varints are read inline with the longer forms calling the
    runtime (`pbc_rt_*`, linked in as bitcode and inlined by LLVM); constant
    writes become stores.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // PBC_CONVERSION_PASSES
