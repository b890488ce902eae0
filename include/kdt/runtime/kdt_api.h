// kdt_api.h - how the runtime's larger functions are compiled (issue 17).
//
// The functions a header declares KDT_RT_API have their definitions in a
// section at the end of that header, which is:
//   - inline, in a self-contained emitted file (the default: --emit=cpp,
//     and every header used on its own);
//   - compiled into external definitions, in the runtime library that
//     `kdt run` builds once per compiler and flag set into its cache
//     (KDT_RT_LIBRARY);
//   - left out of a kernel's translation unit that links that library
//     (KDT_RT_SEPARATE), which then compiles the kernel and the templates
//     it uses, not the runtime.
// Templates and small hot functions stay inline everywhere.
#ifndef KDT_RUNTIME_KDT_API_H
#define KDT_RUNTIME_KDT_API_H

#if defined(KDT_RT_LIBRARY) || defined(KDT_RT_SEPARATE)
#define KDT_RT_API
#else
#define KDT_RT_API inline
#endif

#endif  // KDT_RUNTIME_KDT_API_H
