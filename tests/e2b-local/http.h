/* The HTTP layer of e2b-local: per-request context, query decoding, replies (every reply
 * goes through here so that injected faults apply to it), routing and fault injection.
 *
 * Threading: libmicrohttpd runs one thread per connection, so handlers may block (streams,
 * the proxy). A reply's stream callback is called on that thread until it ends. */
#ifndef E2B_LOCAL_HTTP_H
#define E2B_LOCAL_HTTP_H

#include "envelope.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum route { ROUTE_CONTROL, ROUTE_ENVD, ROUTE_PROXY, ROUTE_ADMIN };

struct req {
    struct MHD_Connection *conn;
    char *uri;              /* raw request target, with the query (owned) */
    const char *method;     /* borrowed from MHD for the request's lifetime */
    char *path;             /* decoded path without the query (owned) */
    enum route route;
    char sandbox_id[64];
    int port;
    struct bytes body;
    bool body_too_big;
    bool started;
    bool replied;
    int status;
    int64_t t0;
    long long cut_after;    /* injected truncate/drop: bytes before the connection drops; -1 none */
    char *headers[64][2];   /* extra reply headers (owned) */
    int nheaders;
    void *upload;           /* envd POST /files streaming state */
};

typedef ssize_t (*stream_fn)(void *cls, char *buf, size_t max);

const char *req_header(struct req *r, const char *name);
/* The decoded value of a query parameter (form decoding, "+" is a space); malloc'd, NULL
 * when absent. *bad is set when the parameter is malformed. */
char *req_query(struct req *r, const char *name, bool *bad);
void req_add_header(struct req *r, const char *name, const char *value);

enum MHD_Result reply_json(struct req *r, int status, json_t *body);          /* steals body */
enum MHD_Result reply_error(struct req *r, int status, const char *fmt, ...)  /* {code,message} */
    __attribute__((format(printf, 3, 4)));
enum MHD_Result reply_raw(struct req *r, int status, const char *ctype, const void *data, size_t len);
enum MHD_Result reply_empty(struct req *r, int status);
/* Streams from fn until it returns MHD_CONTENT_READER_END_OF_STREAM; free_fn(cls) at the end. */
enum MHD_Result reply_stream(struct req *r, int status, const char *ctype, uint64_t size, stream_fn fn, void *cls,
                             void (*free_fn)(void *));
/* The body of a Connect error: {"code":..., "message":...} with the status that goes with it. */
enum MHD_Result reply_connect_error(struct req *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The E2B proxy's 502 for a sandbox that cannot take traffic:
 * {"sandboxId","message","code":502[,"port"]} (port 0 = omitted). */
enum MHD_Result reply_proxy_502(struct req *r, const char *message, int port);

/* Fault injection (see README.md). */
int faults_add(json_t *spec, char *err, size_t errlen);
json_t *faults_json(void);
void faults_clear(void);

/* The libmicrohttpd callbacks (wired up in main.c). */
void *http_uri_log(void *cls, const char *uri, struct MHD_Connection *conn);
enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                            const char *version, const char *upload_data, size_t *upload_data_size,
                            void **con_cls);
void http_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe);

/* Handlers (control.c, envd.c, proxy.c): called once the whole body is in r->body. */
enum MHD_Result control_handle(struct req *r);
enum MHD_Result envd_handle(struct req *r);
enum MHD_Result proxy_handle(struct req *r);
/* envd POST /files streams its body: begin returns true when it takes the upload. */
bool envd_upload_begin(struct req *r);
void envd_upload_data(struct req *r, const char *data, size_t len);
void envd_upload_free(struct req *r);

#endif
