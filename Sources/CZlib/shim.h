#ifndef FORKSTORE_CZLIB_SHIM_H
#define FORKSTORE_CZLIB_SHIM_H

// zlib, for the pack format (ForkStorePack): deflate when a pack is written, inflate when one
// is read back, CRC-32 for the pack index.
#include <zlib.h>

#endif
