/* errors.c -- names of the PLACER_E* codes. */
#include "placer.h"

const char *placer_strerror(int err)
{
    switch (err) {
    case PLACER_OK: return "PLACER_OK: success";
    case PLACER_ENULL: return "PLACER_ENULL: a required pointer argument is NULL";
    case PLACER_ENOMEM: return "PLACER_ENOMEM: out of memory";
    case PLACER_EIDEMPTY: return "PLACER_EIDEMPTY: node id is empty";
    case PLACER_EIDDUP: return "PLACER_EIDDUP: duplicate node id";
    case PLACER_EIDLONG: return "PLACER_EIDLONG: node id or zone longer than PLACER_MAX_ID_LEN";
    case PLACER_EWEIGHT: return "PLACER_EWEIGHT: weight must be from 2^-32 to 2^32";
    case PLACER_ENONODES: return "PLACER_ENONODES: no nodes to build from";
    case PLACER_ETOOMANY: return "PLACER_ETOOMANY: more tokens or nodes than the documented cap";
    case PLACER_ERANGE: return "PLACER_ERANGE: node or token index out of range";
    case PLACER_EINVAL: return "PLACER_EINVAL: argument out of its documented range";
    case PLACER_ENOTSUP: return "PLACER_ENOTSUP: not supported by this CPU, build or strategy";
    case PLACER_ESTALE: return "PLACER_ESTALE: epoch is not newer than the current one";
    case PLACER_ENOTMINE: return "PLACER_ENOTMINE: the node does not own this key in the current epoch";
    case PLACER_ENOLIVE: return "PLACER_ENOLIVE: every node that could serve the key is down";
    case PLACER_EFORMAT: return "PLACER_EFORMAT: the input is not in the expected format";
    case PLACER_EVERSION: return "PLACER_EVERSION: unsupported snapshot format version";
    case PLACER_ETRUNC: return "PLACER_ETRUNC: snapshot truncated";
    case PLACER_ECHECKSUM: return "PLACER_ECHECKSUM: snapshot checksum mismatch";
    case PLACER_ECORRUPT: return "PLACER_ECORRUPT: snapshot content is inconsistent";
    case PLACER_ECONFLICT: return "PLACER_ECONFLICT: another publisher's epoch is as new or newer";
    case PLACER_EUNAVAIL: return "PLACER_EUNAVAIL: no etcd endpoint answered in time";
    case PLACER_ECOMPACTED: return "PLACER_ECOMPACTED: the etcd revision was compacted";
    case PLACER_EMISSING: return "PLACER_EMISSING: nothing is published under the key";
    case PLACER_EAUTH: return "PLACER_EAUTH: etcd refused the credentials, certificate or permission";
    default: return "unknown error";
    }
}
