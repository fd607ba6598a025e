/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_config.h -- the directives, create/merge (mod_tack_config.c). */
#ifndef MOD_TACK_CONFIG_H
#define MOD_TACK_CONFIG_H

#include "mod_tack_model.h"

/* The module record's directive table and server-config functions. */
extern const command_rec mt_config_cmds[];
void *mt_config_create(apr_pool_t *p, server_rec *s);
void *mt_config_merge(apr_pool_t *p, void *basev, void *addv);

#endif /* MOD_TACK_CONFIG_H */
