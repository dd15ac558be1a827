/* proto_depth.c: how deeply a serialized message nests, found without
 * recursion. protobuf-c's unpack recurses once per nested message and has
 * no depth limit, so a crafted few megabytes (a subgraph in a node in a
 * subgraph, 100,000 times) overflow any stack. This walk reads the wire
 * format with the schema's descriptors, an explicit stack of message ends
 * and nothing else, and refuses input deeper than OXP_MAX_PROTO_DEPTH
 * before unpack sees it. Wire-format errors are not its business: it
 * stops at the first and leaves the verdict to unpack. */
#include "proto_depth.h"

#include <stdint.h>

typedef struct {
  size_t end;
  const ProtobufCMessageDescriptor *desc;
} frame;

/* One varint at *pos, not past end; false when there is none. */
static bool varint(const uint8_t *b, size_t end, size_t *pos, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    uint8_t c = b[(*pos)++];
    r |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

static bool is_message(const ProtobufCMessageDescriptor *desc, uint64_t num,
                       const ProtobufCMessageDescriptor **inner) {
  if (num == 0 || num > UINT32_MAX) return false;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field(desc, (unsigned)num);
  if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE) return false;
  *inner = f->descriptor;
  return true;
}

oxp_status oxp_proto_depth_check(const ProtobufCMessageDescriptor *desc,
                                 const void *buf, size_t len, oxp_diag *d) {
  /* Frame 0 is the outer message itself; depth counts the ones inside. */
  frame st[OXP_MAX_PROTO_DEPTH + 1];
  int depth = 0;
  const uint8_t *b = buf;
  size_t pos = 0;
  st[0] = (frame){len, desc};
  for (;;) {
    while (depth > 0 && pos == st[depth].end) depth--;
    if (pos >= st[depth].end) return OXP_OK; /* done, or malformed */
    uint64_t tag, n;
    if (!varint(b, st[depth].end, &pos, &tag)) return OXP_OK;
    switch (tag & 7) {
    case 0:
      if (!varint(b, st[depth].end, &pos, &n)) return OXP_OK;
      break;
    case 1:
      pos += 8;
      break;
    case 5:
      pos += 4;
      break;
    case 2: {
      if (!varint(b, st[depth].end, &pos, &n) || n > st[depth].end - pos)
        return OXP_OK;
      const ProtobufCMessageDescriptor *inner;
      if (!is_message(st[depth].desc, tag >> 3, &inner)) {
        pos += n;
        break;
      }
      if (depth == OXP_MAX_PROTO_DEPTH)
        return oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL,
                        "messages nested deeper than %d (onnxexp's limit) "
                        "at byte %zu", OXP_MAX_PROTO_DEPTH, pos);
      st[++depth] = (frame){pos + n, inner};
      break;
    }
    default:
      return OXP_OK; /* groups and bad wire types: unpack refuses them */
    }
    if (pos > st[depth].end) return OXP_OK;
  }
}
