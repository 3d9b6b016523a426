//===- WireOps.td - wire dialect operations ------------------*- tablegen -*-===//
#ifndef PBC_WIRE_OPS
#define PBC_WIRE_OPS

include "pbc/Dialect/Wire/WireDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

class Wire_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wire_Dialect, mnemonic, traits>;

def Wire_Ptr : LLVM_PointerInAddressSpace<0>;
def Wire_Scalar : AnyTypeOf<[I32, I64, F32, F64]>;

//===----------------------------------------------------------------------===//
// The runtime's state
//===----------------------------------------------------------------------===//

def Wire_DecoderOp : Wire_Op<"decoder", [Pure]> {
  let summary = "the decoder state a pointer holds";
  let description = [{
    A decoder function receives the runtime's `pbc_decoder *` as an
    argument; this gives it its type for the reading ops.
    ```mlir
    %dec = wire.decoder %arg3
    ```
  }];
  let arguments = (ins Wire_Ptr:$state);
  let results = (outs Wire_DecoderType:$decoder);
  let assemblyFormat = "$state attr-dict";
}

def Wire_WriterOp : Wire_Op<"writer", [Pure]> {
  let summary = "the scattered writer a pointer holds";
  let arguments = (ins Wire_Ptr:$state);
  let results = (outs Wire_WriterType:$writer);
  let assemblyFormat = "$state attr-dict";
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

def Wire_VarintSizeOp : Wire_Op<"varint_size", [Pure]> {
  let summary = "bytes a varint of this (unsigned) value takes";
  let description = [{
    Lowered branch-free: the entry of `63 - ctlz(v | 1)` in the module's
    table of varint sizes (`@pbc.varint_size`, 64 bytes). Folds for
    constants (tag sizes are always constant).
  }];
  let arguments = (ins AnyTypeOf<[I32, I64]>:$value);
  let results = (outs I64:$size);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasFolder = 1;
}

def Wire_ZigZagEncodeOp : Wire_Op<"zigzag_encode", [Pure, SameOperandsAndResultType]> {
  let summary = "sint32/sint64 to their unsigned wire value: (n << 1) ^ (n >> bits-1)";
  let arguments = (ins AnyTypeOf<[I32, I64]>:$value);
  let results = (outs AnyTypeOf<[I32, I64]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasFolder = 1;
}

def Wire_ZigZagDecodeOp : Wire_Op<"zigzag_decode", [Pure, SameOperandsAndResultType]> {
  let summary = "the inverse of zigzag_encode: (n >> 1) ^ -(n & 1)";
  let arguments = (ins AnyTypeOf<[I32, I64]>:$value);
  let results = (outs AnyTypeOf<[I32, I64]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Encoding (backwards)
//===----------------------------------------------------------------------===//

def Wire_PutBytesOp : Wire_Op<"put_bytes", [MemoryEffects<[MemWrite]>]> {
  let summary = "write constant bytes (tags) ending at $pos";
  let description = [{
    ```mlir
    %p1 = wire.put_bytes %p0, "\0A" // tag of field 1, wire type 2
    ```
    Two adjacent constant writes canonicalize into one.
  }];
  let arguments = (ins Wire_Ptr:$pos, StrAttr:$bytes);
  let results = (outs Wire_Ptr:$result);
  let assemblyFormat = "$pos `,` $bytes attr-dict";
  let hasCanonicalizer = 1;
  let hasVerifier = 1;
}

def Wire_PutVarintOp : Wire_Op<"put_varint", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a varint ending at $pos, and constant bytes before it";
  let description = [{
    The value is unsigned: int32 and enum values are sign-extended to i64
    first (ten bytes when negative), uint32 zero-extended.

    `prefix`: constant bytes (the field's tag) that end where the varint
    starts, written on each of the varint's paths at a constant offset
    from the value, so that no join follows the varint before the tag. `put_bytes` of a `put_varint` canonicalizes
    into this.

    `room`: how many bytes below $pos are free at run time, so that a long
    varint may be written as one word that also covers unused bytes below
    its start (the prefix then overwrites them): 4 for a value below 2^28,
    10 for any. Without it, or with less, the varint writes only its own
    bytes.

    ```mlir
    %p1 = wire.put_varint %p0, %v room %free prefix "\08"
    ```
  }];
  let arguments = (ins Wire_Ptr:$pos, I64:$value, Optional<I64>:$room,
                       OptionalAttr<StrAttr>:$prefix);
  let results = (outs Wire_Ptr:$result);
  let assemblyFormat =
      "$pos `,` $value (`room` $room^)? (`prefix` $prefix^)? attr-dict";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "mlir::Value":$pos, "mlir::Value":$value,
                   CArg<"mlir::Value", "{}">:$room), [{
      build($_builder, $_state, pos, value, room, mlir::StringAttr());
    }]>
  ];
}

def Wire_PutFixedOp : Wire_Op<"put_fixed", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a little-endian 4- or 8-byte value ending at $pos";
  let arguments = (ins Wire_Ptr:$pos, Wire_Scalar:$value);
  let results = (outs Wire_Ptr:$result);
  let assemblyFormat = "$pos `,` $value attr-dict `:` type($value)";
}

def Wire_PutDataOp : Wire_Op<"put_data", [MemoryEffects<[MemWrite, MemRead]>]> {
  let summary = "copy $size bytes from $data so they end at $pos";
  let description = [{
    Lowered to copies of the size class inline (up to 128 bytes), or, with
    `out_of_line`, to a memcpy call: for data that is usually absent, like
    a message's unknown fields, whose inline classes would be code for
    nothing in every encoder.
  }];
  let arguments = (ins Wire_Ptr:$pos, Wire_Ptr:$data, I64:$size,
                   UnitAttr:$out_of_line);
  let results = (outs Wire_Ptr:$result);
  let assemblyFormat = "$pos `,` $data `,` $size (`out_of_line` $out_of_line^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Decoding
//
// Every reading op takes the decoder state $dec and the input end, and
// returns the position after what it read: null when the input is malformed
// (the runtime has then recorded why in $dec).
//===----------------------------------------------------------------------===//

class Wire_ReadOp<string mnemonic, list<Trait> traits = []>
    : Wire_Op<mnemonic, traits # [MemoryEffects<[MemRead, MemWrite]>]>;

def Wire_GetTagOp : Wire_ReadOp<"get_tag"> {
  let summary = "read a tag (at most 5 bytes, non-zero field number)";
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$pos, Wire_Ptr:$end);
  let results = (outs Wire_Ptr:$next, I32:$tag);
  let assemblyFormat = "$dec `,` $pos `,` $end attr-dict";
}

def Wire_GetVarintOp : Wire_ReadOp<"get_varint"> {
  let summary = "read a varint (at most 10 bytes)";
  let description = [{
    `unchecked`: $pos is below the function's `wire.read_limit`, so the
    inline bytes are read without a bounds check (the runtime's long form
    still stops at $end); the caller catches a value that ran past $end.

    `rare_long`: values of three bytes and more are rare here, or read
    once a message (a singular field's value, bools, enums, lengths of
    16 KiB and more), so when `unchecked` their form is a call of the
    word-wide read (`pbc_rt_varint_long`), not the inlined copy of it that
    other unchecked varints (a repeated integer's elements) get.
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$pos, Wire_Ptr:$end,
                       UnitAttr:$unchecked, UnitAttr:$rare_long);
  let results = (outs Wire_Ptr:$next, I64:$value);
  let assemblyFormat = [{
    $dec `,` $pos `,` $end (`unchecked` $unchecked^)? (`rare_long` $rare_long^)?
    attr-dict
  }];
}

def Wire_GetFixedOp : Wire_ReadOp<"get_fixed"> {
  let summary = "read a little-endian 4- or 8-byte value";
  let description = [{
    `unchecked`: $pos is below `wire.read_limit` (see get_varint).
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$pos, Wire_Ptr:$end,
                       UnitAttr:$unchecked);
  let results = (outs Wire_Ptr:$next, Wire_Scalar:$value);
  let assemblyFormat = "$dec `,` $pos `,` $end (`unchecked` $unchecked^)? attr-dict `:` type($value)";
}

def Wire_GetLengthOp : Wire_ReadOp<"get_length"> {
  let summary = "read the length of a length-delimited field";
  let description = [{
    Fails unless the length fits in the remaining input. $next is the first
    byte of the payload, which ends at $next + $length. `unchecked`: the
    length's bytes are read as get_varint's are; a length of three bytes
    and more as a `rare_long` one. Without it, a length of two bytes and
    more is the runtime's (`pbc_rt_length`).
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$pos, Wire_Ptr:$end,
                       UnitAttr:$unchecked);
  let results = (outs Wire_Ptr:$next, I64:$length);
  let assemblyFormat = "$dec `,` $pos `,` $end (`unchecked` $unchecked^)? attr-dict";
}

def Wire_ExpectTagOp : Wire_Op<"expect_tag", [MemoryEffects<[MemRead]>]> {
  let summary = "do the next bytes hold this (constant) tag?";
  let description = [{
    The in-order parse chain: after a field, the decoder checks for the tag
    of the field that usually follows and jumps straight to its code. The
    tag is compared as one little-endian integer load, after one bounds
    check; false near the end of the input. `unchecked`: $pos is below
    `wire.read_limit`, no bounds check.
    ```mlir
    %same = wire.expect_tag %pos, %end, "\12"
    ```
  }];
  let arguments = (ins Wire_Ptr:$pos, Wire_Ptr:$end, StrAttr:$bytes,
                       UnitAttr:$unchecked);
  let results = (outs I1:$matches);
  let assemblyFormat = "$pos `,` $end `,` $bytes (`unchecked` $unchecked^)? attr-dict";
  let hasVerifier = 1;
}

def Wire_ReadLimitOp : Wire_Op<"read_limit", [MemoryEffects<[MemRead]>]> {
  let summary = "the position below which reads need no bounds check";
  let description = [{
    min($end, the end of the whole input - 16). From a position below it a
    decoder reads a tag (5 bytes) and a varint (10 bytes) with no bounds
    check, one comparison instead of one per read: the input goes on past
    a sub-message's $end, so a read past $end stays in memory, and the
    decoder's loop then rejects the position past $end. One per decoder
    call, kept in a register.
    ```mlir
    %limit = wire.read_limit %dec, %end
    ```
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$end);
  let results = (outs Wire_Ptr:$limit);
  let assemblyFormat = "$dec `,` $end attr-dict";
}

def Wire_SkipOp : Wire_ReadOp<"skip"> {
  let summary = "skip the value of an unknown field whose tag was just read";
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$pos, Wire_Ptr:$end, I32:$tag);
  let results = (outs Wire_Ptr:$next);
  let assemblyFormat = "$dec `,` $pos `,` $end `,` $tag attr-dict";
}

def Wire_FailOp : Wire_ReadOp<"fail"> {
  let summary = "record an error; returns a null position";
  let arguments = (ins Wire_DecoderType:$dec, I32Attr:$status);
  let results = (outs Wire_Ptr:$null);
  let assemblyFormat = "$dec `,` $status attr-dict";
  let hasVerifier = 1;
}

def Wire_Utf8ValidOp : Wire_Op<"utf8_valid", [MemoryEffects<[MemRead]>]> {
  let summary = "is [$data, $data + $size) well-formed UTF-8?";
  let arguments = (ins Wire_Ptr:$data, I64:$size);
  let results = (outs I1:$valid);
  let assemblyFormat = "$data `,` $size attr-dict";
}

def Wire_CountVarintsOp : Wire_Op<"count_varints", [MemoryEffects<[MemRead]>]> {
  let summary = "how many varints [$begin, $end) holds";
  let description = [{
    Counts the bytes below 0x80 (each ends one varint): the element count of a
    packed run, so that its array is allocated once before the run is read.
  }];
  let arguments = (ins Wire_Ptr:$begin, Wire_Ptr:$end);
  let results = (outs I64:$count);
  let assemblyFormat = "$begin `,` $end attr-dict";
}

def Wire_PushOp : Wire_ReadOp<"push"> {
  let summary = "enter a nested message or group; false past the depth limit";
  let arguments = (ins Wire_DecoderType:$dec);
  let results = (outs I1:$ok);
  let assemblyFormat = "$dec attr-dict";
}

def Wire_PopOp : Wire_ReadOp<"pop"> {
  let summary = "leave a nested message or group";
  let arguments = (ins Wire_DecoderType:$dec);
  let assemblyFormat = "$dec attr-dict";
}

def Wire_AllocOp : Wire_ReadOp<"alloc"> {
  let summary = "arena memory for a sub-message; null when out of memory";
  let arguments = (ins Wire_DecoderType:$dec, I64Attr:$size);
  let results = (outs Wire_Ptr:$mem);
  let assemblyFormat = "$dec `,` $size attr-dict";
  let hasVerifier = 1;
}

def Wire_GrowOp : Wire_ReadOp<"grow"> {
  let summary = "room for $add more elements in a repeated field's array";
  let description = [{
    Returns the array (the same one while it has capacity, see pbc_rt_grow),
    or null when out of memory.
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$data, I64:$size, I64:$add,
                       I64Attr:$elem_size);
  let results = (outs Wire_Ptr:$result);
  let assemblyFormat = "$dec `,` $data `,` $size `,` $add `,` $elem_size attr-dict";
  let hasVerifier = 1;
}

def Wire_KeepUnknownOp : Wire_ReadOp<"keep_unknown"> {
  let summary = "append the raw field [$start, $end) to a message's unknown fields";
  let description = [{
    `$unknown` points to the message's `pbc_bytes` of unknown fields. While
    the unknown fields are contiguous in the input they stay a view of it;
    otherwise they are copied into the arena. False when out of memory.
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$unknown, Wire_Ptr:$start,
                       Wire_Ptr:$end);
  let results = (outs I1:$ok);
  let assemblyFormat = "$dec `,` $unknown `,` $start `,` $end attr-dict";
}

def Wire_KeepUnknownVarintOp : Wire_ReadOp<"keep_unknown_varint"> {
  let summary = "append a varint field to a message's unknown fields";
  let description = [{
    For values taken out of a packed run (closed enums): the field is
    re-encoded as its own record, as libprotobuf does.
  }];
  let arguments = (ins Wire_DecoderType:$dec, Wire_Ptr:$unknown, I64:$value,
                       I32Attr:$number);
  let results = (outs I1:$ok);
  let assemblyFormat = "$dec `,` $unknown `,` $value `,` $number attr-dict";
  let hasVerifier = 1;
}

def Wire_BytesEqualOp : Wire_Op<"bytes_equal", [MemoryEffects<[MemRead]>]> {
  let summary = "are two byte strings equal (map keys)?";
  let arguments = (ins Wire_Ptr:$lhs, I64:$lhs_size, Wire_Ptr:$rhs,
                       I64:$rhs_size);
  let results = (outs I1:$equal);
  let assemblyFormat = "$lhs `,` $lhs_size `,` $rhs `,` $rhs_size attr-dict";
}

//===----------------------------------------------------------------------===//
// Writing forwards through a scattered writer (pbc_writer)
//
// T_write's slow path, for a message that does not fit in the writer's
// current chunk: fields in order, each value possibly straddling chunks.
//===----------------------------------------------------------------------===//

def Wire_ReserveOp : Wire_Op<"reserve", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "$size contiguous bytes in the writer's current chunk, or null";
  let arguments = (ins Wire_WriterType:$writer, I64:$size);
  let results = (outs Wire_Ptr:$mem);
  let assemblyFormat = "$writer `,` $size attr-dict";
}

def Wire_WriteVarintOp : Wire_Op<"write_varint", [MemoryEffects<[MemWrite]>]> {
  let summary = "append a varint (tags too) to the writer";
  let arguments = (ins Wire_WriterType:$writer, I64:$value);
  let assemblyFormat = "$writer `,` $value attr-dict";
}

def Wire_WriteFixedOp : Wire_Op<"write_fixed", [MemoryEffects<[MemWrite]>]> {
  let summary = "append a little-endian 4- or 8-byte value to the writer";
  let arguments = (ins Wire_WriterType:$writer, Wire_Scalar:$value);
  let assemblyFormat = "$writer `,` $value attr-dict `:` type($value)";
}

def Wire_WriteDataOp : Wire_Op<"write_data", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "append $size bytes from $data to the writer";
  let arguments = (ins Wire_WriterType:$writer, Wire_Ptr:$data, I64:$size);
  let assemblyFormat = "$writer `,` $data `,` $size attr-dict";
}

#endif // PBC_WIRE_OPS
