/* proto_pack.h: protobuf-c messages packed with each sub-message's size
 * computed once (proto_pack.c). */
#ifndef OXP_PROTO_PACK_H
#define OXP_PROTO_PACK_H

#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "oxp.h"

/* The packed size of every message under a root, in pre-order, kept in
 * arena chunks. Messages of descriptor shared may be reached more than
 * once (the serializer gives values of one type one TypeProto): each is
 * walked once per measure and per pack; later visits record one size and
 * copy the bytes packed the first time (memo). */
typedef struct oxp_pb_chunk oxp_pb_chunk;
typedef struct oxp_pb_memo oxp_pb_memo;
typedef struct {
  oxp_arena *a;
  oxp_pb_chunk *first, *last;
  uint64_t n;
  const ProtobufCMessageDescriptor *shared; /* NULL: none */
  oxp_pb_memo *memo;
} oxp_pb_sizes;

/* The packed size of m; records the sizes of its sub-messages in s (empty
 * on entry). False when the arena runs out. */
bool oxp_pb_measure(const ProtobufCMessage *m, oxp_pb_sizes *s,
                    uint64_t *size);

/* Packs m into out, byte for byte as protobuf_c_message_pack_to_buffer
 * does, in appends of a few kilobytes; a bytes or string field of 1 KB or
 * more is one append of its own, from the field's own data. With
 * the sizes oxp_pb_measure recorded for m. m must be at most 4 GiB. */
void oxp_pb_pack(const ProtobufCMessage *m, const oxp_pb_sizes *s,
                 ProtobufCBuffer *out);

#endif
