#if canImport(Glibc)
import Glibc
#endif

/// Memory a phase of work has freed, given back to the system between phases.
enum FreedMemory {
    /// Returns the free pages of the process's malloc arenas to the system (glibc's
    /// `malloc_trim`). glibc keeps freed memory in its arenas, so without this the peak of a
    /// roll-up's read-back sits on top of what its copy left behind. Elsewhere, does nothing.
    static func giveBack() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// `malloc_trim`, found at run time: `<malloc.h>` is not part of the Glibc module.
    private static let trim: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map {
        unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
    }
    #endif
}
