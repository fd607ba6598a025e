/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_store.h -- the TackStore file contract (tack_store.c): which files
 * a store reads, a file's name from its certificate, the "Created by"
 * lines every TACK file written by mod_tack's parts begins with.
 */
#ifndef TACK_STORE_H
#define TACK_STORE_H

#include <stddef.h>
#include <time.h>

#include <openssl/x509.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A TackStore reads the files of its directory whose names end in this. */
#define TACK_STORE_SUFFIX ".tack.pem"

/* tack_store_name_ok returns 1 for the name of a file a TackStore reads
 * (a name in the directory, not a path): ending in TACK_STORE_SUFFIX, with
 * something before it, not starting with '.' (hidden files and the
 * ".NAME.XXXXXX" files tack_file_write_temp makes are never read), no
 * '/'; 0 otherwise, NULL included.  The suffix is compared as it is
 * (".TACK.PEM" is not read). */
int tack_store_name_ok(const char *name);

/* The longest part of a store file's name taken from the certificate's DNS
 * name, and of its key type. */
#define TACK_STORE_HOST_MAX 64
#define TACK_STORE_KEYTYPE_MAX 16
/* host + '.' + key type + '.' + 8 hex + ".tack.pem" + NUL
 * = 64 + 1 + 16 + 1 + 8 + 9 + 1 */
#define TACK_STORE_NAME_SIZE 100

/* tack_cert_store_name writes the one name a TackStore file for |cert| has,
 * whoever writes it (the module's TackSigningKey, `tack sign -o STORE/`),
 * so that each replaces the other's file, into |out| (|out_len| bytes,
 * TACK_STORE_NAME_SIZE always suffices), derived from the certificate
 * alone:
 *
 *   HOST.KEYTYPE.SPKI8.tack.pem   (www.example.org.ecdsa.1f2e3d4c.tack.pem)
 *
 * HOST is the first DNS name of the subjectAltName, else the subject's
 * (last, most specific) CN, in lower case (names differing only by case
 * are one name), a '*' written as '_' ("*.example.org": "_.example.org"),
 * every character other than [a-z0-9._-] dropped, leading and trailing '.'
 * and '-' removed (never a hidden file, never an option), at most
 * TACK_STORE_HOST_MAX characters.  KEYTYPE is the key's algorithm: "ecdsa",
 * "rsa", "rsa-pss", "ed25519", "ed448" (the module's slot names, lower
 * case), else OpenSSL's (or its provider's) name of it, cleaned the same
 * way, else "key" (a key OpenSSL cannot decode).  SPKI8 is the first 8
 * hex digits of the SHA-256 of the SubjectPublicKeyInfo (the TACK's target
 * hash).  A certificate with no usable DNS name or CN gets
 * "KEYTYPE.SPKI8.tack.pem".
 * The name never holds a '/' and never starts with '.'.  Returns TACK_OK,
 * TACK_ERR_BUFFER_TOO_SMALL, TACK_ERR_INVALID_ARG or TACK_ERR_CRYPTO (the
 * key could not be hashed). */
tack_status_t tack_cert_store_name(X509 *cert, char *out, size_t out_len);

/* Room for tack_store_header's text: two lines, a producer of up to 128
 * bytes. */
#define TACK_STORE_HEADER_SIZE 192

/* tack_store_header writes the lines every TACK file written by mod_tack's
 * parts begins with, as TACKpy's do:
 *
 *   Created by PRODUCER
 *   Created at 2026-12-04T23:10:01Z
 *
 * into |out| (|out_len| bytes, NUL-terminated), |now| in UTC.  PRODUCER is
 * the writer: "tack 1.2.0" for the tool, "mod_tack (TackSigningKey)" for
 * the module.  Returns TACK_OK; TACK_ERR_INVALID_ARG for a NULL or empty
 * producer or one with a control character (a line break would forge a
 * line of its own); TACK_ERR_BUFFER_TOO_SMALL. */
tack_status_t tack_store_header(char *out, size_t out_len, const char *producer,
                                time_t now);

#ifdef __cplusplus
}
#endif

#endif /* TACK_STORE_H */
