#ifndef TENANTMIGRATOR_CCRYPTO_SHIM_H
#define TENANTMIGRATOR_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, which libpq already links: used only for SHA-256 version hashes.
#include <openssl/sha.h>
#endif
