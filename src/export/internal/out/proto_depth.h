/* proto_depth.h: refuses serialized messages nested too deeply for
 * protobuf-c's recursive unpack (see proto_depth.c). */
#ifndef OXP_PROTO_DEPTH_H
#define OXP_PROTO_DEPTH_H

#include <protobuf-c/protobuf-c.h>

#include "oxp.h"

/* OXP_OK unless the len bytes, read as a desc message, nest messages more
 * than OXP_MAX_PROTO_DEPTH deep (OXP_ERR_GRAPH, naming the limit). */
oxp_status oxp_proto_depth_check(const ProtobufCMessageDescriptor *desc,
                                 const void *buf, size_t len, oxp_diag *d);

#endif
