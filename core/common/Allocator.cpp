#include "core/common/Allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace trainplan {

void keepFreedMemoryForReuse()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

} // namespace trainplan
