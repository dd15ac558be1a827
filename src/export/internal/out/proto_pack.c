/* proto_pack.c: protobuf-c messages packed with each size computed once.
 *
 * protobuf_c_message_pack_to_buffer writes a sub-message's length before
 * the sub-message, so it asks protobuf_c_message_get_packed_size, which
 * walks the whole sub-tree; then packing the sub-message asks again for
 * each of its own sub-messages. A ModelProto nests five deep (model, graph,
 * node, attribute, tensor), so every byte was sized about five times, a
 * fifth of an export's instructions. Here one walk (oxp_pb_measure) sizes
 * every message bottom-up and records the sizes in pre-order; the packing
 * walk visits the messages in the same pre-order and takes each size as it
 * comes. The rules (which fields are present, the order, the encodings) are
 * protobuf-c 1.4's, so the bytes are the same; tests compare every
 * fixture's model with protobuf-c's own packing (test_proto_pack). */
#include "proto_pack.h"

#include <string.h>

enum { CHUNK = 16384 };

struct oxp_pb_chunk {
  oxp_pb_chunk *next;
  uint32_t n;
  uint32_t v[CHUNK];
};

static uint32_t *reserve(oxp_pb_sizes *s) {
  if (!s->last || s->last->n == CHUNK) {
    oxp_pb_chunk *c = oxp_alloc(s->a, sizeof *c);
    if (!c) return NULL;
    c->next = NULL;
    c->n = 0;
    if (s->last) s->last->next = c;
    else s->first = c;
    s->last = c;
  }
  s->n++;
  return &s->last->v[s->last->n++];
}

/* ---- shared messages ---------------------------------------------------------- */

typedef struct {
  const ProtobufCMessage *m; /* NULL: a free slot */
  uint64_t size;
  uint8_t *bytes;            /* size bytes, packed at the first visit */
  uint32_t gen;              /* the pack that filled bytes */
} memo_entry;

struct oxp_pb_memo {
  memo_entry *e;
  size_t cap, n;
  uint32_t gen; /* packs so far */
};

static size_t memo_slot(const oxp_pb_memo *t, const ProtobufCMessage *m) {
  size_t i = (size_t)(((uintptr_t)m >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (t->cap - 1);
  while (t->e[i].m && t->e[i].m != m) i = (i + 1) & (t->cap - 1);
  return i;
}

/* m's entry, added empty (size 0, no bytes) on its first visit; NULL when
 * the arena runs out. At most half full: probes stay short. */
static memo_entry *memo_get(oxp_pb_sizes *s, const ProtobufCMessage *m, bool *fresh) {
  oxp_pb_memo *t = s->memo;
  if (!t && !(t = s->memo = oxp_alloc(s->a, sizeof *t))) return NULL;
  if (2 * (t->n + 1) > t->cap) {
    oxp_pb_memo g = {.cap = t->cap ? t->cap * 2 : 256, .n = t->n, .gen = t->gen};
    if (!(g.e = oxp_alloc(s->a, sizeof *g.e * g.cap))) return NULL;
    for (size_t i = 0; i < t->cap; i++)
      if (t->e[i].m) g.e[memo_slot(&g, t->e[i].m)] = t->e[i];
    *t = g;
  }
  size_t i = memo_slot(t, m);
  *fresh = !t->e[i].m;
  if (*fresh) t->e[i].m = m, t->n++;
  return &t->e[i];
}

static unsigned varint_len(uint64_t v) {
  unsigned n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static unsigned put_varint(uint8_t *p, uint64_t v) {
  unsigned n = 0;
  while (v >= 0x80) p[n++] = (uint8_t)(v | 0x80), v >>= 7;
  p[n++] = (uint8_t)v;
  return n;
}

/* Varint value of a scalar as protobuf-c encodes it: int32 sign-extends to
 * ten bytes, sint zigzags. */
static uint64_t varint_of(ProtobufCType t, const void *p) {
  switch (t) {
  case PROTOBUF_C_TYPE_ENUM:
  case PROTOBUF_C_TYPE_INT32: return (uint64_t)(int64_t) * (const int32_t *)p;
  case PROTOBUF_C_TYPE_UINT32: return *(const uint32_t *)p;
  case PROTOBUF_C_TYPE_SINT32: {
    int32_t v = *(const int32_t *)p;
    return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
  }
  case PROTOBUF_C_TYPE_SINT64: {
    int64_t v = *(const int64_t *)p;
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  }
  case PROTOBUF_C_TYPE_BOOL: return *(const protobuf_c_boolean *)p ? 1 : 0;
  default: return *(const uint64_t *)p; /* INT64, UINT64 */
  }
}

static int wire_type(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_FIXED32:
  case PROTOBUF_C_TYPE_FLOAT: return PROTOBUF_C_WIRE_TYPE_32BIT;
  case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_FIXED64:
  case PROTOBUF_C_TYPE_DOUBLE: return PROTOBUF_C_WIRE_TYPE_64BIT;
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_BYTES:
  case PROTOBUF_C_TYPE_MESSAGE: return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
  default: return PROTOBUF_C_WIRE_TYPE_VARINT;
  }
}

static size_t elt_size(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_FIXED64:
  case PROTOBUF_C_TYPE_DOUBLE:
  case PROTOBUF_C_TYPE_INT64:
  case PROTOBUF_C_TYPE_UINT64:
  case PROTOBUF_C_TYPE_SINT64: return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
  case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
  default: return 4;
  }
}

/* protobuf-c's field_is_zeroish, for proto3 fields without a label. */
static bool zeroish(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_BOOL: return !*(const protobuf_c_boolean *)p;
  case PROTOBUF_C_TYPE_FLOAT: return *(const float *)p == 0;
  case PROTOBUF_C_TYPE_DOUBLE: return *(const double *)p == 0;
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(const char *const *)p;
    return !s || !*s;
  }
  case PROTOBUF_C_TYPE_BYTES:
  case PROTOBUF_C_TYPE_MESSAGE: return !*(const void *const *)p;
  default: return elt_size(f->type) == 8 ? !*(const uint64_t *)p
                                         : !*(const uint32_t *)p;
  }
}

/* How many values field f of m holds for packing: 0 or 1 for a singular
 * field (by protobuf-c's presence rules), the count for a repeated one. */
static size_t count(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  const char *member = (const char *)m + f->offset;
  const char *q = (const char *)m + f->quantifier_offset;
  bool ptr_type = f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING;
  switch (f->label) {
  case PROTOBUF_C_LABEL_REQUIRED: return 1;
  case PROTOBUF_C_LABEL_REPEATED: return *(const size_t *)q;
  default: break;
  }
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    if (*(const uint32_t *)q != f->id) return 0;
  } else if (f->label == PROTOBUF_C_LABEL_NONE) {
    return !zeroish(f, member);
  } else if (!ptr_type) {
    return *(const protobuf_c_boolean *)q ? 1 : 0;
  }
  if (ptr_type) {
    const void *p = *(const void *const *)member;
    if (!p || p == f->default_value) return 0;
  }
  return 1;
}

/* Where the values of f are: the member itself, or its array. */
static const char *values(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  const char *member = (const char *)m + f->offset;
  return f->label == PROTOBUF_C_LABEL_REPEATED ? *(const char *const *)member : member;
}

static bool packed(const ProtobufCFieldDescriptor *f) {
  return f->label == PROTOBUF_C_LABEL_REPEATED && (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
}

/* Bytes of one value of f without its tag (with its length prefix). */
static uint64_t value_size(const ProtobufCFieldDescriptor *f, const void *p,
                           oxp_pb_sizes *s, bool *ok) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_FIXED32:
  case PROTOBUF_C_TYPE_FLOAT: return 4;
  case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_FIXED64:
  case PROTOBUF_C_TYPE_DOUBLE: return 8;
  case PROTOBUF_C_TYPE_STRING: {
    const char *str = *(const char *const *)p;
    size_t n = str ? strlen(str) : 0;
    return varint_len(n) + n;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    size_t n = ((const ProtobufCBinaryData *)p)->len;
    return varint_len(n) + n;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
    uint64_t n = 0;
    if (sub && !oxp_pb_measure(sub, s, &n)) *ok = false;
    return varint_len(n) + n;
  }
  default: return varint_len(varint_of(f->type, p));
  }
}

bool oxp_pb_measure(const ProtobufCMessage *m, oxp_pb_sizes *s, uint64_t *size) {
  uint32_t *slot = reserve(s);
  if (!slot) return false;
  memo_entry *e = NULL;
  if (s->shared && m->descriptor == s->shared) {
    bool fresh;
    if (!(e = memo_get(s, m, &fresh))) return false;
    if (!fresh) {
      *slot = e->size > UINT32_MAX ? UINT32_MAX : (uint32_t)e->size;
      *size = e->size;
      return true;
    }
  }
  bool ok = true;
  uint64_t total = 0;
  const ProtobufCMessageDescriptor *desc = m->descriptor;
  for (unsigned i = 0; i < desc->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    size_t n = count(m, f);
    if (!n) continue;
    const char *v = values(m, f);
    size_t step = elt_size(f->type);
    unsigned tag = varint_len((uint64_t)f->id << 3);
    if (packed(f)) {
      uint64_t payload = 0;
      if (wire_type(f->type) == PROTOBUF_C_WIRE_TYPE_VARINT)
        for (size_t k = 0; k < n; k++) payload += varint_len(varint_of(f->type, v + k * step));
      else payload = (uint64_t)n * step;
      total += tag + varint_len(payload) + payload;
      continue;
    }
    for (size_t k = 0; k < n; k++) total += tag + value_size(f, v + k * step, s, &ok);
  }
  for (size_t i = 0; i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    total += varint_len((uint64_t)u->tag << 3) + u->len;
  }
  *slot = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
  *size = total;
  if (e && ok) {
    e->size = total;
    if (!(e->bytes = oxp_alloc(s->a, total ? total : 1))) return false;
  }
  return ok;
}

/* ---- packing ----------------------------------------------------------------- */

/* Tags, lengths and small values are gathered in buf and handed to out a
 * few kilobytes at a time: one append per tag and value was a call through
 * out's pointer for every few bytes. Data of BIG bytes or more still goes
 * to out in one append of its own, from its own memory (serialize.c finds
 * lazy tensors by that pointer). */
enum { BUF = 8192, BIG = 1024, ROOM = 24 /* a tag and a length */ };

typedef struct {
  const oxp_pb_chunk *c;
  uint32_t i;
  ProtobufCBuffer *out;
  const oxp_pb_sizes *s;
  uint32_t gen;
  size_t used;
  uint8_t buf[BUF];
} packer;

/* Where a shared message's first packing goes: its memo bytes. */
typedef struct {
  ProtobufCBuffer base; /* first: the packer hands out &base */
  uint8_t *at, *end;
} capture;

static void capture_append(ProtobufCBuffer *b, size_t len, const uint8_t *data) {
  capture *c = (capture *)b;
  size_t n = len < (size_t)(c->end - c->at) ? len : (size_t)(c->end - c->at);
  memcpy(c->at, data, n);
  c->at += n;
}

static uint32_t next_size(packer *p) {
  if (p->i == p->c->n) p->c = p->c->next, p->i = 0;
  return p->c->v[p->i++];
}

static void flush(packer *p) {
  if (p->used) p->out->append(p->out, p->used, p->buf);
  p->used = 0;
}

/* Room for at least ROOM bytes at buf + used. */
static uint8_t *room(packer *p) {
  if (p->used > BUF - ROOM) flush(p);
  return p->buf + p->used;
}

static void put(packer *p, const void *data, size_t n) {
  if (n == 0) return; /* an empty bytes field may have no data at all */
  if (n >= BIG) {
    flush(p);
    p->out->append(p->out, n, data);
    return;
  }
  if (p->used + n > BUF) flush(p);
  memcpy(p->buf + p->used, data, n);
  p->used += n;
}

static void put_tag(packer *p, const ProtobufCFieldDescriptor *f, int wt, uint64_t len, bool has_len) {
  uint8_t *b = room(p);
  unsigned n = put_varint(b, ((uint64_t)f->id << 3) | (unsigned)wt);
  if (has_len) n += put_varint(b + n, len);
  p->used += n;
}

static void pack_msg(packer *p, const ProtobufCMessage *m);

/* A shared message is packed into its memo bytes at its first visit in
 * this pack (consuming its sub-messages' sizes, as measuring recorded
 * them then), and those bytes are copied at every visit. */
static void pack_sub(packer *p, const ProtobufCMessage *m) {
  if (!p->s->shared || m->descriptor != p->s->shared) {
    pack_msg(p, m);
    return;
  }
  memo_entry *e = &p->s->memo->e[memo_slot(p->s->memo, m)];
  if (e->gen != p->gen) {
    flush(p);
    ProtobufCBuffer *keep = p->out;
    capture c = {.base = {.append = capture_append}, .at = e->bytes, .end = e->bytes + e->size};
    p->out = &c.base;
    pack_msg(p, m);
    flush(p);
    p->out = keep;
    e->gen = p->gen;
  }
  put(p, e->bytes, (size_t)e->size);
}

static void pack_value(packer *p, const ProtobufCFieldDescriptor *f, const void *v) {
  int wt = wire_type(f->type);
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *str = *(const char *const *)v;
    size_t n = str ? strlen(str) : 0;
    put_tag(p, f, wt, n, true);
    put(p, str, n);
    return;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *bd = v;
    put_tag(p, f, wt, bd->len, true);
    put(p, bd->data, bd->len);
    return;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    put_tag(p, f, wt, sub ? next_size(p) : 0, true);
    if (sub) pack_sub(p, sub);
    return;
  }
  default: break;
  }
  uint8_t *b = room(p);
  unsigned n = put_varint(b, ((uint64_t)f->id << 3) | (unsigned)wt);
  if (wt == PROTOBUF_C_WIRE_TYPE_VARINT) n += put_varint(b + n, varint_of(f->type, v));
  else {
    /* Little-endian hosts only, as protobuf-c's memcpy path. */
    size_t w = wt == PROTOBUF_C_WIRE_TYPE_32BIT ? 4 : 8;
    memcpy(b + n, v, w);
    n += (unsigned)w;
  }
  p->used += n;
}

static void pack_packed(packer *p, const ProtobufCFieldDescriptor *f, const char *v, size_t n) {
  size_t step = elt_size(f->type);
  if (wire_type(f->type) != PROTOBUF_C_WIRE_TYPE_VARINT) {
    put_tag(p, f, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, (uint64_t)n * step, true);
    put(p, v, n * step);
    return;
  }
  uint64_t payload = 0;
  for (size_t k = 0; k < n; k++) payload += varint_len(varint_of(f->type, v + k * step));
  put_tag(p, f, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, payload, true);
  for (size_t k = 0; k < n; k++) {
    uint8_t *b = room(p);
    p->used += put_varint(b, varint_of(f->type, v + k * step));
  }
}

static void pack_msg(packer *p, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *desc = m->descriptor;
  for (unsigned i = 0; i < desc->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    size_t n = count(m, f);
    if (!n) continue;
    const char *v = values(m, f);
    if (packed(f)) {
      pack_packed(p, f, v, n);
      continue;
    }
    size_t step = elt_size(f->type);
    for (size_t k = 0; k < n; k++) pack_value(p, f, v + k * step);
  }
  for (size_t i = 0; i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    uint8_t *b = room(p);
    p->used += put_varint(b, ((uint64_t)u->tag << 3) | u->wire_type);
    put(p, u->data, u->len);
  }
}

void oxp_pb_pack(const ProtobufCMessage *m, const oxp_pb_sizes *s, ProtobufCBuffer *out) {
  packer p = {.c = s->first, .i = 1, .out = out, .s = s}; /* slot 0 is m's own */
  if (s->memo) p.gen = ++s->memo->gen;
  pack_msg(&p, m);
  flush(&p);
}
