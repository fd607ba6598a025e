/* fuzz_validate.c -- the whole "validate a TACK against a certificate" path
 * a server runs before serving and a client runs on what it receives: the
 * input is a TACK followed by a DER certificate. */
#include "fuzz_common.h"

#include <openssl/x509.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_t tack;
    const uint8_t *p;
    uint8_t hash[TACK_HASH_LEN];
    X509 *cert;
    tack_status_t st;

    if (size < TACK_LEN) {
        return 0;
    }
    fuzz_require(tack_parse(&tack, data, TACK_LEN) == TACK_OK);
    p = data + TACK_LEN;
    cert = d2i_X509(NULL, &p, (long)(size - TACK_LEN));
    st = tack_validate(&tack, cert, 1700000000);
    fuzz_check_status(st);
    if (cert != NULL) {
        st = tack_spki_hash(cert, hash);
        fuzz_check_status(st);
        if (st == TACK_OK) {
            fuzz_require((tack_check_target_hash(&tack, hash) == TACK_OK) ==
                         (memcmp(tack.target_hash, hash, TACK_HASH_LEN) == 0));
        }
        X509_free(cert);
    }
    return 0;
}
