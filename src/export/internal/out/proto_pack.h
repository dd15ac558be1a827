/* proto_pack.h: protobuf-c messages packed with each sub-message's size
 * computed once (proto_pack.c). */
#ifndef OXP_PROTO_PACK_H
#define OXP_PROTO_PACK_H

#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "oxp.h"

/* The packed size of every message under a root, in pre-order, kept in
 * arena chunks. */
typedef struct oxp_pb_chunk oxp_pb_chunk;
typedef struct {
  oxp_arena *a;
  oxp_pb_chunk *first, *last;
  uint64_t n;
} oxp_pb_sizes;

/* The packed size of m; records the sizes of its sub-messages in s (empty
 * on entry). False when the arena runs out. */
bool oxp_pb_measure(const ProtobufCMessage *m, oxp_pb_sizes *s,
                    uint64_t *size);

/* Packs m into out, byte for byte as protobuf_c_message_pack_to_buffer
 * does (same appends for bytes fields: one, from the field's own data), with
 * the sizes oxp_pb_measure recorded for m. m must be at most 4 GiB. */
void oxp_pb_pack(const ProtobufCMessage *m, const oxp_pb_sizes *s,
                 ProtobufCBuffer *out);

#endif
