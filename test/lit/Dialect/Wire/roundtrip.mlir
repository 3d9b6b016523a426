// Every wire op and type prints in a form that parses back to the same op.
// RUN: pbc-opt %s | FileCheck %s
// RUN: pbc-opt %s | pbc-opt | FileCheck %s

// CHECK-LABEL: llvm.func @sizes
// CHECK-NEXT: %{{.*}} = wire.varint_size %arg0 : i64
// CHECK-NEXT: %{{.*}} = wire.zigzag_encode %arg1 : i32
// CHECK-NEXT: %{{.*}} = wire.zigzag_decode %arg0 : i64
llvm.func @sizes(%v: i64, %w: i32) {
  %0 = wire.varint_size %v : i64
  %1 = wire.zigzag_encode %w : i32
  %2 = wire.zigzag_decode %v : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @encode
// CHECK-NEXT: %[[A:.*]] = wire.put_bytes %arg0, "\0A\12"
// CHECK-NEXT: %[[B:.*]] = wire.put_varint %[[A]], %arg1
// CHECK-NEXT: %[[C:.*]] = wire.put_varint %[[B]], %arg1 room %arg4
// CHECK-NEXT: %[[E:.*]] = wire.put_varint %[[C]], %arg1 room %arg4 prefix "\08"
// CHECK-NEXT: %[[F:.*]] = wire.put_varint %[[E]], %arg1 prefix "\80\01"
// CHECK-NEXT: %[[D:.*]] = wire.put_fixed %[[F]], %arg2 : f64
// CHECK-NEXT: %[[G:.*]] = wire.put_data %[[D]], %arg3, %arg1
// CHECK-NEXT: %{{.*}} = wire.put_data %[[G]], %arg3, %arg1 out_of_line
llvm.func @encode(%p: !llvm.ptr, %v: i64, %f: f64, %data: !llvm.ptr, %room: i64) {
  %0 = wire.put_bytes %p, "\0A\12"
  %1 = wire.put_varint %0, %v
  %2 = wire.put_varint %1, %v room %room
  %5 = wire.put_varint %2, %v room %room prefix "\08"
  %6 = wire.put_varint %5, %v prefix "\80\01"
  %3 = wire.put_fixed %6, %f : f64
  %4 = wire.put_data %3, %data, %v
  %7 = wire.put_data %4, %data, %v out_of_line
  llvm.return
}

// CHECK-LABEL: llvm.func @decode
// CHECK-NEXT: %[[DEC:.*]] = wire.decoder %arg0
// CHECK-NEXT: %{{.*}} = wire.read_limit %[[DEC]], %arg2
// CHECK-NEXT: %{{.*}}, %{{.*}} = wire.get_tag %[[DEC]], %arg1, %arg2
// CHECK-NEXT: %{{.*}}, %{{.*}} = wire.get_varint %[[DEC]], %arg1, %arg2 unchecked{{$}}
// CHECK-NEXT: %{{.*}}, %{{.*}} = wire.get_varint %[[DEC]], %arg1, %arg2 unchecked rare_long
// CHECK-NEXT: %{{.*}}, %{{.*}} = wire.get_fixed %[[DEC]], %arg1, %arg2 : i32
// CHECK-NEXT: %{{.*}}, %{{.*}} = wire.get_length %[[DEC]], %arg1, %arg2
// CHECK-NEXT: %{{.*}} = wire.expect_tag %arg1, %arg2, "\80\01" unchecked
// CHECK-NEXT: %{{.*}} = wire.skip %[[DEC]], %arg1, %arg2, %arg3
// CHECK-NEXT: %{{.*}} = wire.fail %[[DEC]], 1
// CHECK-NEXT: %{{.*}} = wire.utf8_valid %arg1, %arg4
// CHECK-NEXT: %{{.*}} = wire.count_varints %arg1, %arg2
// CHECK-NEXT: %{{.*}} = wire.push %[[DEC]]
// CHECK-NEXT: wire.pop %[[DEC]]
// CHECK-NEXT: %{{.*}} = wire.alloc %[[DEC]], 24
// CHECK-NEXT: %{{.*}} = wire.grow %[[DEC]], %arg1, %arg4, %arg4, 8
// CHECK-NEXT: %{{.*}} = wire.keep_unknown %[[DEC]], %arg5, %arg1, %arg2
// CHECK-NEXT: %{{.*}} = wire.keep_unknown_varint %[[DEC]], %arg5, %arg4, 7
// CHECK-NEXT: %{{.*}} = wire.bytes_equal %arg1, %arg4, %arg2, %arg4
llvm.func @decode(%state: !llvm.ptr, %p: !llvm.ptr, %end: !llvm.ptr, %tag: i32,
                  %n: i64, %unknown: !llvm.ptr) {
  %d = wire.decoder %state
  %0 = wire.read_limit %d, %end
  %1:2 = wire.get_tag %d, %p, %end
  %2:2 = wire.get_varint %d, %p, %end unchecked
  %long:2 = wire.get_varint %d, %p, %end unchecked rare_long
  %3:2 = wire.get_fixed %d, %p, %end : i32
  %4:2 = wire.get_length %d, %p, %end
  %5 = wire.expect_tag %p, %end, "\80\01" unchecked
  %6 = wire.skip %d, %p, %end, %tag
  %7 = wire.fail %d, 1
  %8 = wire.utf8_valid %p, %n
  %9 = wire.count_varints %p, %end
  %10 = wire.push %d
  wire.pop %d
  %11 = wire.alloc %d, 24
  %12 = wire.grow %d, %p, %n, %n, 8
  %13 = wire.keep_unknown %d, %unknown, %p, %end
  %14 = wire.keep_unknown_varint %d, %unknown, %n, 7
  %15 = wire.bytes_equal %p, %n, %end, %n
  llvm.return
}

// CHECK-LABEL: llvm.func @write
// CHECK-NEXT: %[[W:.*]] = wire.writer %arg0
// CHECK-NEXT: %{{.*}} = wire.reserve %[[W]], %arg1
// CHECK-NEXT: wire.write_varint %[[W]], %arg1
// CHECK-NEXT: wire.write_fixed %[[W]], %arg2 : f32
// CHECK-NEXT: wire.write_data %[[W]], %arg3, %arg1
llvm.func @write(%state: !llvm.ptr, %n: i64, %f: f32, %data: !llvm.ptr) {
  %w = wire.writer %state
  %0 = wire.reserve %w, %n
  wire.write_varint %w, %n
  wire.write_fixed %w, %f : f32
  wire.write_data %w, %data, %n
  llvm.return
}
