/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack.c -- the `tack` command-line tool: main, the command table and the
 * help texts.  The commands live in tack_cli_*.c (see tack_cli.h).
 *
 * Files are the ones TACKpy 0.9.x reads and writes; the flags of genkey,
 * sign, break and view are TACKpy's.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>

#include "tack_cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *help;
} cli_command_t;

static const cli_command_t cli_commands[] = {
    {"genkey", cmd_genkey, "create a new TACK key",
     "usage: " TACK_PROG
     " genkey [-p PASSWORD | --password-file FILE] [-o FILE]\n"
     "                   [--force] [--iterations N]\n"
     "\n"
     "Creates a new TACK key (ECDSA P-256) and writes it as a password-\n"
     "protected \"TACK PRIVATE KEY\" file that TACKpy can read, to FILE\n"
     "(mode 0600) or to standard output.  The TACK ID is printed on\n"
     "standard error.\n"
     "\n"
     "  -p PASSWORD           the password (visible to other users in ps:\n"
     "                        prefer the alternatives)\n"
     "  --password-file FILE  read the password from FILE's first line\n"
     "                        (else $TACK_PASSWORD, else a prompt when\n"
     "                        standard input is a terminal, asked twice)\n"
     "  -o, --output FILE     write here instead of standard output (its\n"
     "                        directory must exist: checked before the\n"
     "                        password is asked for)\n"
     "  -f, --force           replace FILE if it exists (never by default)\n"
     "  --iterations N        PBKDF2 iterations (default 8192, as TACKpy)\n"
     "\n"
     "A key in a PKCS#11 token is made by the token's tools, for example\n"
     "OpenSC's (then sign with -k 'pkcs11:token=tack;object=tackkey'):\n"
     "  pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --login \\\n"
     "      --keypairgen --key-type EC:prime256v1 --label tackkey --id 01\n"},
    {"sign", cmd_sign, "sign a TACK for a certificate (or a fleet)",
     "usage: " TACK_PROG
     " sign -k KEYFILE -c CERT [-m MIN_GENERATION] [-g GENERATION]\n"
     "                 [-e EXPIRATION] [-o FILE] [password options]\n"
     "       " TACK_PROG
     " sign -k KEYFILE -c CERT|DIR [-c CERT|DIR]... -o DIR\n"
     "\n"
     "Signs a TACK whose target_hash is the SHA-256 of CERT's public key\n"
     "(SubjectPublicKeyInfo).  CERT is PEM or DER; in a chain file the\n"
     "first certificate is used.\n"
     "\n"
     "  -k, --key KEYFILE       the TACK PRIVATE KEY file, or a pkcs11: URI\n"
     "                          of a key in a token (the PIN: -p, ...)\n"
     "  -c, --certificate CERT  the server's certificate; repeat it, name\n"
     "                          more after the options, or name a\n"
     "                          directory to sign a whole fleet\n"
     "  -m, --min-generation N  0-255, default 0, or what a TACK under the\n"
     "                          key already has for the certificate's names\n"
     "  -g, --generation N      0-255, default MIN_GENERATION, or that\n"
     "                          TACK's (generations only go up: below)\n"
     "  -e, --expiration WHEN   a UTC time (2030-06-06Z, 2030-06-06T12:00Z)\n"
     "                          or a duration from now (30d, 12h, 1d12h);\n"
     "                          default: the certificate's notAfter.  Always\n"
     "                          rounded up to the minute.\n"
     "  -o, --output FILE|DIR   default standard output.  With several\n"
     "                          certificates (or a directory) DIR receives\n"
     "                          one file per certificate, named as a\n"
     "                          TackStore names it (as mod_tack's\n"
     "                          TackSigningKey does) after its DNS name,\n"
     "                          key type and key:\n"
     "                          HOST.KEYTYPE.SPKI8.tack.pem, such as\n"
     "                          www.example.org.ecdsa.1f2e3d4c.tack.pem.\n"
     "                          A DIR ending in '/' is made if missing (not\n"
     "                          its parents)\n"
     "  -f, --force             replace existing output files\n"
     "  --name NAME             with one certificate and -o DIR/: the file's\n"
     "                          name in DIR (NAME.tack.pem, no '/'), e.g.\n"
     "                          for a hook that may only write one store\n"
     "  -p PASSWORD, --password-file FILE   see `" TACK_PROG " help genkey`\n"
     "  --no-progress           no progress line on a terminal\n"
     "  --now WHEN              pretend the time is WHEN (for tests)\n"
     "  --state FILE            mod_tack's TackStateFile (default\n"
     "                          " CLI_STATE_DEFAULT ")\n"
     "  --allow-lower-generation  sign a -g below what clients may have\n"
     "                          seen under the key\n"
     "\n"
     "Generations only go up: a client that saw a TACK's min_generation\n"
     "refuses a lower generation under its key.  Without -m and -g, both are\n"
     "at least what a TACK under the key already has for the certificate's\n"
     "names, in the file replaced, in -o DIR's other files for its host, or\n"
     "in the state file (one line says so); a -g given below that is\n"
     "refused unless --allow-lower-generation.\n"
     "\n"
     "In a directory, files ending in .crt, .cert, .pem, .cer or .der are\n"
     "taken (.pem only if it holds a CERTIFICATE block; *.tack.pem never).\n"
     "Every certificate is signed before any file is written: a name\n"
     "collision, an existing file or a certificate that cannot be signed\n"
     "stops the run with nothing written.\n"},
    {"break", cmd_break, "create the break signature of a key",
     "usage: " TACK_PROG " break -k KEYFILE [-o FILE] [password options]\n"
     "\n"
     "Writes the \"TACK BREAK SIG\" of the key: a public statement that the\n"
     "key is compromised.  Clients that receive it discard every pin on\n"
     "that key (draft-perrin-tls-tack-00).  Serve it with\n"
     "`" TACK_PROG " serverinfo -b` or mod_tack's configuration.\n"
     "\n"
     "  -k, --key KEYFILE   the TACK PRIVATE KEY file, or a pkcs11: URI\n"
     "  -o, --output FILE   default standard output\n"
     "  -f, --force         replace FILE if it exists\n"},
    {"view", cmd_view, "show TACKs, break signatures, keys, certificates",
     "usage: " TACK_PROG
     " view [--json] [-c CERT] [--state FILE] [--now WHEN]\n"
     "                 FILE...\n"
     "\n"
     "Shows every TACK, TACK BREAK SIG, TACK PRIVATE KEY (its public part:\n"
     "no password needed), certificate or SERVERINFO block in each FILE,\n"
     "and the TACK ID of a key in a token named by a pkcs11: URI,\n"
     "in the form TACKpy prints:\n"
     "\n"
     "  TACK ID        = rrted.ptvtl.d2uiq.ox2xe.w4ss3\n"
     "  min_generation = 0\n"
     "  generation     = 0\n"
     "  expiration     = 2042-01-29T01:09Z\n"
     "  target_hash    = bf3e45a3...\n"
     "\n"
     "For a certificate: key_sha256 (the SHA-256 of its public key, which\n"
     "a TACK's target_hash must equal) and the same as an HPKP-style\n"
     "pin-sha256.  Signatures are always checked; one that fails makes the\n"
     "exit status 1.\n"
     "\n"
     "  --json      one JSON array of every item, for scripts\n"
     "  -c CERT     also check each TACK against CERT: target hash,\n"
     "              generation, expiration, and that its generation is\n"
     "              not below what a TACK under its key has for CERT's\n"
     "              names (the other files of its directory for the host,\n"
     "              the state file) (exit status 1 on failure)\n"
     "  --state FILE  mod_tack's TackStateFile for -c (default\n"
     "              " CLI_STATE_DEFAULT ")\n"
     "  --now WHEN  the time for expiration checks\n"},
    {"serverinfo", cmd_serverinfo, "build an OpenSSL SERVERINFO file",
     "usage: " TACK_PROG " serverinfo -t TACK [-b BREAKSIGS...] [-a 0|1]\n"
     "                       [--format draft-00|draft-02] [-c CERT] [--v2]\n"
     "                       [-o FILE]\n"
     "\n"
     "Writes the TACK extension (type 62208) as a \"SERVERINFO FOR TACK\" PEM\n"
     "block, so that servers other than mod_tack can serve it:\n"
     "  Apache mod_ssl:  SSLOpenSSLConfCmd ServerInfoFile FILE\n"
     "  nginx:           ssl_conf_command ServerInfoFile FILE;\n"
     "  openssl:         openssl s_server -serverinfo FILE ...\n"
     "Such servers send it with the certificate it was loaded with, in\n"
     "TLS 1.2 only (with --v2 also in TLS 1.3 EncryptedExtensions).\n"
     "\n"
     "  -t, --tack FILE        the TACK (draft-02: up to two, by two -t or a\n"
     "                         pair file)\n"
     "  -b, --break-sigs FILE  break signatures, up to 8 in all; repeat -b\n"
     "                         or list files after it (draft-00 only)\n"
     "  -a, --activation N     pin_activation, 0 (default) or 1; draft-02:\n"
     "                         activation_flags 0-3\n"
     "  --format F             draft-00 (default) or draft-02\n"
     "  -c, --certificate CERT refuse a TACK whose target_hash is not CERT's\n"
     "  --v2                   SERVERINFOV2 with TLS 1.3 too; see the\n"
     "                         caveat in " TACK_PROG "(1) before using it\n"
     "  -o, --output FILE      default standard output; -f replaces FILE\n"
     "\n"
     "TACKs and break signatures are verified first (signature, generation,\n"
     "expiration): what every TACK client would reject is never written.\n"},
    {"check", cmd_check, "connect to a server and check its TACK",
     "usage: " TACK_PROG
     " check HOST[:PORT] [--servername NAME] [--tls1_2|--tls1_3]\n"
     "                  [--format draft-00|draft-02|auto] [--ca FILE]\n"
     "                  [--pins FILE] [--preload FILE] [--now WHEN]\n"
     "                  [--require] [--json] [--timeout SECONDS]\n"
     "                  [--key-type ecdsa|rsa] [--warn-days N]\n"
     "       " TACK_PROG
     " check --all-addresses HOST[:PORT] [--resolve HOST:ADDR]...\n"
     "                  [the options above but --pins]\n"
     "\n"
     "Connects (port 443 by default), asks for the TACK extension in the\n"
     "ClientHello, shows what came back (TLS 1.2 ServerHello or TLS 1.3\n"
     "EncryptedExtensions) and checks it as a TACK client must, in the\n"
     "order of draft-perrin-tls-tack-00 section 5: syntax (decode_error),\n"
     "break signatures and the TACK's signature (decrypt_error), generation\n"
     "(decode_error), target hash against the presented certificate\n"
     "(illegal_parameter), expiration (certificate_expired).\n"
     "\n"
     "  --servername NAME  SNI name and pin name (default HOST unless it is\n"
     "                     an IP address)\n"
     "  --tls1_2           TLS 1.2 (the default: the drafts define TACK for\n"
     "                     the TLS 1.2 ServerHello)\n"
     "  --tls1_3           TLS 1.3 only: checks a server's TLS 1.3 mapping\n"
     "                     (mod_tack: TackTLS13 on)\n"
     "  --format F         how to parse the reply (default auto: draft-00,\n"
     "                     else draft-02)\n"
     "  --ca FILE          verify the certificate chain and name against\n"
     "                     these CAs; without it the chain is not checked\n"
     "                     (TACK does not depend on CAs)\n"
     "  --pins FILE        be a full TACK client with this pin store:\n"
     "                     activation, min_generation revocation, break\n"
     "                     signatures; a rejection (access_denied,\n"
     "                     certificate_revoked) exits 1.  The file is\n"
     "                     created if missing and replaced atomically;\n"
     "                     a symbolic link is followed (its target is\n"
     "                     the store, the link stays).\n"
     "  --preload FILE     a preload list (`" TACK_PROG " help preload`): "
     "a listed\n"
     "                     host must present a TACK under the listed key\n"
     "                     from the first connection (access_denied,\n"
     "                     certificate_revoked below its min_generation)\n"
     "                     unless a break signature lifts it; applied\n"
     "                     before --pins, which cannot weaken it\n"
     "  --require          a reply without a TACK, or with a TACK broken\n"
     "                     by its own break signature, is a failure\n"
     "  --now WHEN         the client's clock (UTC time, @SECONDS, +30d)\n"
     "  --timeout SECONDS  connect and handshake timeout (default 10)\n"
     "  --key-type T       ecdsa or rsa: the certificate of that type, for\n"
     "                     a server with both (signature algorithms and,\n"
     "                     in TLS 1.2, cipher suites limited to it)\n"
     "  --warn-days N      warn about a TACK that expires within N days\n"
     "                     (default 30; 0: never): a \"warning\" line and\n"
     "                     \"warnings\" in --json; the exit status is not\n"
     "                     changed, so --require still passes\n"
     "  --json             the result as JSON\n"
     "  --all-addresses    the fleet check: every address of HOST (its A and\n"
     "                     AAAA records) at once, SNI HOST, one row each,\n"
     "                     and whether pin activation is safe to turn on\n"
     "  --resolve HOST:ADDR  with --all-addresses: check ADDR (IPv6 as\n"
     "                     [2001:db8::1]) and not the DNS's addresses;\n"
     "                     repeat it for each server\n"
     "\n"
     "Exit status 0 when the connection is accepted, 1 when a TACK client\n"
     "would reject it (the alert is named) or it fails, 2 on usage errors.\n"
     "\n"
     "The fleet check says \"safe to enable pin activation\" and exits 0\n"
     "only when every address (1) answers, (2) serves a TACK that passes\n"
     "the checks above, (3) by one TACK key, the one most addresses serve,\n"
     "(4) with a generation no lower than the highest min_generation any\n"
     "address serves, and (5) no address serves a break signature of that\n"
     "key.  Otherwise it exits 1 and names each address that would lock\n"
     "clients out, and why.  Warnings do not change the verdict: a TACK\n"
     "expiring within 30 days, expirations more than 7 days apart, pin\n"
     "activation already on at some addresses.  Up to 64 addresses are\n"
     "checked at a time, each within --timeout.\n"},
    {"pins", cmd_pins, "list (or edit) a pin store",
     "usage: " TACK_PROG
     " pins --pins FILE [--json] [--now WHEN] [--delete NAME]\n"
     "\n"
     "Lists the name records of the pin store written by\n"
     "`" TACK_PROG
     " check --pins FILE`: host name, the pinned TACK ID, the key's\n"
     "min_generation, when the name was first seen and until when the pin\n"
     "is active.  --delete NAME removes a name's pin.\n"},
    {"state", cmd_state, "show (or date back) the module's state file",
     "usage: " TACK_PROG " state [--redate] [--now WHEN] FILE\n"
     "\n"
     "Shows mod_tack's TackStateFile: for each vhost name and certificate\n"
     "type, the TACK keys it served with pin activation, when each was first\n"
     "seen and last served, and until when clients' pins can be active,\n"
     "judged at the clock.  Exit status 1 when the file holds a time later\n"
     "than the clock (the module's TACK00064).\n"
     "\n"
     "  --redate    only when the clock is right and the file was written\n"
     "              while it ran ahead: date every later time back to the\n"
     "              clock (each key counted as served until now, its pins as\n"
     "              long as clients can hold them) and rewrite FILE; then\n"
     "              restart the server.  A file with nothing later than the\n"
     "              clock is left as it is; a symbolic link is refused, as\n"
     "              the module does not read one (TACK00045).\n"
     "  --now WHEN  pretend the time is WHEN (for tests)\n"},
    {"preload", cmd_preload, "build or show a preload list of TACK keys",
     "usage: " TACK_PROG " preload build [--tack HOST=FILE]... [--hosts FILE]\n"
     "                          [-o FILE] [-f] [--expires WHEN]\n"
     "                          [--timeout SECONDS]\n"
     "       " TACK_PROG " preload view [--json] [--now WHEN] FILE\n"
     "\n"
     "A preload list gives a TACK client the TACK key of each listed host\n"
     "before its first connection, so that it is not trust-on-first-use:\n"
     "`" TACK_PROG
     " check --preload FILE` treats a listed host as pinned to the\n"
     "listed key.  The format is JSON (docs/preload.md).\n"
     "\n"
     "build: one entry per host: host name, TACK key (and TACK ID),\n"
     "min_generation, and when it was observed.\n"
     "  -t, --tack HOST=FILE  the key and min_generation of the TACK in FILE\n"
     "                        (its signature must verify); repeat it\n"
     "  --hosts FILE          check each line's HOST[:PORT] [SERVERNAME] as\n"
     "                        `" TACK_PROG
     " check` does (TLS 1.2) and list the key\n"
     "                        of the TACK it serves; every host must pass\n"
     "                        and serve one ('#' starts a comment)\n"
     "  -e, --expires WHEN    when the list stops being enforced: a UTC\n"
     "                        time or a duration (default 90d, at most\n"
     "                        365d)\n"
     "  --timeout SECONDS     per host with --hosts (default 10)\n"
     "  -o, --output FILE     default standard output; -f replaces FILE\n"
     "  --now WHEN            pretend the time is WHEN (for tests)\n"
     "\n"
     "view: the list for people (--json: as JSON).  Exit status 1 when the\n"
     "list has expired, 2 when it is malformed or of a newer version.\n"
     "\n"
     "Entries pin exact names: there is no include-subdomains flag (TACK\n"
     "pins the name a client connected to; see docs/preload.md).\n"},
    {NULL, NULL, NULL, NULL}};

static const char cli_overview[] =
    "usage: " TACK_PROG " COMMAND [OPTIONS]\n"
    "\n"
    "TACK (Trust Assertions for Certificate Keys, draft-perrin-tls-tack):\n"
    "keys, TACKs and break signatures in TACKpy's file formats, files for\n"
    "servers, and a TACK client.\n"
    "\n"
    "Commands:\n";

static const char cli_overview_tail[] =
    "\n"
    "`" TACK_PROG " help COMMAND` (or `" TACK_PROG
    " COMMAND --help`) explains each one.\n"
    "Passwords: -p PASSWORD, --password-file FILE, $TACK_PASSWORD, or a\n"
    "prompt on a terminal.\n"
    "`" TACK_PROG " --quiet COMMAND` (-q) says nothing when the command\n"
    "succeeds (\"wrote FILE\"...); errors and warnings are still said.\n"
    "Exit status: 0 success; 1 a TACK, file or connection fails a check;\n"
    "2 usage errors and unreadable or unusable files.\n";

/* The two commands main answers itself, which the table does not list. */
static const char cli_help_help[] =
    "usage: " TACK_PROG " help [COMMAND]\n"
    "       " TACK_PROG " COMMAND --help\n"
    "\n"
    "Without COMMAND, lists the commands; with one, explains it and its\n"
    "options.  `" TACK_PROG " --help` and `" TACK_PROG " -h` are `" TACK_PROG
    " help`.\n";

static const char cli_help_version[] =
    "usage: " TACK_PROG " version\n"
    "       " TACK_PROG " --version\n"
    "       " TACK_PROG " -V\n"
    "\n"
    "Prints the tool's version and the OpenSSL library it runs with.\n";

/* put_help prints a command's help.  Its synopsis is laid out for the name
 * "tack": a continuation line of it (indented past the 7 columns of
 * "usage: ") moves by the difference when TACK_PROG is another name
 * (tacktool, in the Debian package), so that it stays under the options
 * it continues.  The rest of the text is printed as it is. */
static void put_help(const char *text, FILE *fp)
{
    const int shift = (int)strlen(TACK_PROG) - 4;
    const char *end = strstr(text, "\n\n");
    const char *p = text;

    if (end == NULL) {
        end = text + strlen(text);
    }
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        size_t lead = strspn(p, " ");

        if (lead > 7 && lead < len) {
            int pad = (int)lead + shift;

            fprintf(fp, "%*s", pad > 8 ? pad : 8, "");
            fwrite(p + lead, 1, len - lead, fp);
        } else {
            fwrite(p, 1, len, fp);
        }
        p += len;
    }
    fputs(end, fp);
}

int cli_help(FILE *fp, const char *cmd)
{
    const cli_command_t *c;

    if (cmd == NULL) {
        fputs(cli_overview, fp);
        for (c = cli_commands; c->name != NULL; c++) {
            fprintf(fp, "  %-11s %s\n", c->name, c->summary);
        }
        fprintf(fp, "  %-11s %s\n", "help", "explain a command");
        fprintf(fp, "  %-11s %s\n", "version", "print the version");
        fputs(cli_overview_tail, fp);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "version") == 0) {
        fputs(cmd[0] == 'h' ? cli_help_help : cli_help_version, fp);
        return CLI_EXIT_OK;
    }
    for (c = cli_commands; c->name != NULL; c++) {
        if (strcmp(c->name, cmd) == 0) {
            put_help(c->help, fp);
            return CLI_EXIT_OK;
        }
    }
    cli_err("no command \"%s\"; `" TACK_PROG " help` lists them", cmd);
    return CLI_EXIT_USAGE;
}

int cli_usage_hint(const char *cmd)
{
    fprintf(stderr, "(`" TACK_PROG " help %s` explains the options)\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, TACK_PROG " %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return cli_usage_hint(cmd);
}

int main(int argc, char **argv)
{
    const cli_command_t *c;
    const char *name;
    char prog[sizeof(TACK_PROG) + 32];
    int rc;

    if (argc < 2) {
        cli_help(stderr, NULL);
        return CLI_EXIT_USAGE;
    }
    /* tack --quiet COMMAND: nothing on stderr when all goes well */
    if (strcmp(argv[1], "-q") == 0 || strcmp(argv[1], "--quiet") == 0) {
        cli_quiet = 1;
        argv[1] = argv[0];
        argc--;
        argv++;
        if (argc < 2) {
            cli_help(stderr, NULL);
            return CLI_EXIT_USAGE;
        }
    }
    name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 ||
        strcmp(name, "-h") == 0) {
        if (argc > 3) {
            return cli_usage_error("help", "one command at a time");
        }
        return cli_help(stdout, argc == 3 ? argv[2] : NULL);
    }
    if (strcmp(name, "version") == 0 || strcmp(name, "--version") == 0 ||
        strcmp(name, "-V") == 0) {
        if (argc > 2) {
            return cli_usage_error("version", "takes no arguments");
        }
        printf(TACK_PROG " %s (mod_tack; %s)\n", TACK_CLI_VERSION,
               OpenSSL_version(OPENSSL_VERSION));
        return CLI_EXIT_OK;
    }
    for (c = cli_commands; c->name != NULL; c++) {
        if (strcmp(c->name, name) == 0) {
            break;
        }
    }
    if (c->name == NULL) {
        cli_err("no command \"%s\"; `" TACK_PROG " help` lists them", name);
        return CLI_EXIT_USAGE;
    }
    /* getopt_long reports errors itself, prefixed with argv[0]: make that
     * "tack CMD" (TACK_PROG's), the prefix of every other message of the
     * command, and the commands add only the pointer to their help
     * (cli_usage_hint). */
    snprintf(prog, sizeof(prog), TACK_PROG " %s", c->name);
    argv[1] = prog;
    rc = c->run(argc - 1, argv + 1);
    ERR_clear_error();
    return rc;
}
