/* Private to core/: how http.c plugs its transfers into the loop's curl multi handle. */
#ifndef E2B_LOOP_CURL_H
#define E2B_LOOP_CURL_H

#include "core/net/loop.h"

#include <curl/curl.h>

/* Every easy handle added to the loop's multi handle carries one of these as CURLOPT_PRIVATE;
 * the loop calls done() (outside any curl callback) when the transfer finished, after
 * removing the handle from the multi handle. */
typedef struct e2b_loop_transfer {
    void (*done)(struct e2b_loop_transfer *t, CURLcode result);
    /* Called by e2b_loop_free for transfers still registered. */
    void (*abandon)(struct e2b_loop_transfer *t);
    /* Called when the multi handle failed: end the transfer now with an error saying why
     * (its handle may still be in the multi handle) and unregister it. */
    void (*fail)(struct e2b_loop_transfer *t, const char *why);
    struct e2b_loop_transfer *next, *prev; /* the loop's list of registered transfers */
} e2b_loop_transfer;

CURLM *e2b_loop_multi(e2b_loop *loop);

/* Registers/unregisters a transfer (it stays registered while waiting for a retry too). */
void e2b_loop_transfer_register(e2b_loop *loop, e2b_loop_transfer *t);
void e2b_loop_transfer_unregister(e2b_loop *loop, e2b_loop_transfer *t);

/* Fault injection for tests: while on, every curl_multi_perform/curl_multi_poll of this loop
 * reports CURLM_INTERNAL_ERROR, as a broken multi handle would. */
void e2b_loop_inject_multi_failure(e2b_loop *loop, int on);
/* Fault injection for tests: while on, e2b_loop_timer_add fails (returns 0), as when out of
 * memory. */
void e2b_loop_inject_timer_failure(e2b_loop *loop, int on);

#endif
