// upb as a measured peer: the upb_msglayout tables its decoder and encoder
// run on, built at start-up from libprotobuf's descriptors.
//
// Debian 12's libupb-dev is a July 2020 snapshot (0.0.0~git200730) with no
// code generator, and its upb/msg.h includes upb/upb.h and upb/table.int.h,
// which the package does not ship. So the few declarations the bench needs
// are restated below exactly as that snapshot's msg.h, decode.h, encode.h and
// upb.h have them (a mismatch would show in the round-trip check of codecs.h,
// not as silent garbage), and UpbLayouts computes what protoc-gen-upb (upbc)
// of mid-2020 would have baked into the generated .upb.c files.
#pragma once

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

extern "C" {

typedef struct upb_arena upb_arena;
typedef struct upb_alloc upb_alloc;
extern upb_alloc upb_alloc_global;  // malloc-backed

typedef struct {
  uint32_t number;
  uint16_t offset;
  int16_t presence;       // > 0: hasbit index; < 0: ~(oneof case offset); 0: none
  uint16_t submsg_index;  // into upb_msglayout.submsgs, for messages and groups
  uint8_t descriptortype; // FieldDescriptorProto.Type
  uint8_t label;          // FieldDescriptorProto.Label, or 4 (map), 7 (packed)
} upb_msglayout_field;

typedef struct upb_msglayout {
  const struct upb_msglayout *const *submsgs;
  const upb_msglayout_field *fields;  // by field number: the decoder searches it
  uint16_t size;                      // after the internal header, 8-aligned
  uint16_t field_count;
  bool extendable;
} upb_msglayout;

typedef struct {
  const char *data;
  size_t size;
} upb_strview;

typedef struct {
  uintptr_t data;  // element pointer, lg2 of the element size in its low 3 bits
  size_t len, size;
} upb_array;

// An arena on `mem` (the arena's own struct at its end); more blocks, if
// needed, come from `alloc`. upb_arena_free releases those, never `mem`.
upb_arena *upb_arena_init(void *mem, size_t n, upb_alloc *alloc);
void upb_arena_free(upb_arena *a);
void *_upb_msg_new(const upb_msglayout *l, upb_arena *a);  // zeroed
const char *upb_msg_getunknown(const void *msg, size_t *len);
bool upb_decode(const char *buf, size_t size, void *msg, const upb_msglayout *l,
                upb_arena *arena);
char *upb_encode(const void *msg, const upb_msglayout *l, upb_arena *arena,
                 size_t *size);
}

namespace pbcbench {

// The tables of one message type and of every type reachable from it. Fields
// upb of 2020 cannot hold as generated code would (maps, messages over 64 KiB)
// abort with the field's name rather than decode into the wrong place.
class UpbLayouts {
public:
  explicit UpbLayouts(const google::protobuf::Descriptor *root);
  const upb_msglayout *root() const { return root_; }

  // Bytes the upb message tree under `msg` (of type `d`) keeps as unknown
  // fields: a field the tables lack, or declare with the wrong wire type,
  // lands there and would still round-trip, so the codecs' check wants 0.
  size_t UnknownBytes(const void *msg, const google::protobuf::Descriptor *d) const;

private:
  struct Table {
    upb_msglayout layout = {};
    std::vector<upb_msglayout_field> fields;
    std::vector<const upb_msglayout *> submsgs;
    std::map<const google::protobuf::FieldDescriptor *, size_t> index;  // into fields
  };
  Table &Build(const google::protobuf::Descriptor *d);

  std::map<const google::protobuf::Descriptor *, std::unique_ptr<Table>> tables_;
  const upb_msglayout *root_;
};

}  // namespace pbcbench
