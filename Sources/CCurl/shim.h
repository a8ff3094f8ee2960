#ifndef FORKSTORE_CCURL_SHIM_H
#define FORKSTORE_CCURL_SHIM_H

// libcurl, the HTTP client of Git LFS transfers (ForkStoreExchange's Assets/HTTP/). Built and
// checked against Debian 12's libcurl 7.88: nothing here or in the Swift that calls it uses an
// option deprecated there (CURLOPT_PROTOCOLS_STR, 7.85, replaces CURLOPT_PROTOCOLS).

// The type-checking macros of curl/typecheck-gcc.h wrap curl_easy_setopt for GCC only; the
// wrappers below call the function itself.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift does not import: one wrapper
// per argument type used.

static inline CURLcode forkstore_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_data_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode forkstore_curl_setopt_read_callback(CURL *handle, curl_read_callback value) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, value);
}

static inline CURLcode forkstore_curl_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode forkstore_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

// Macros Swift does not import as values.
static inline long forkstore_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline size_t forkstore_curl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline long forkstore_curl_auth_none(void) { return (long)CURLAUTH_NONE; }

#endif
