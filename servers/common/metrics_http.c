// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * GET /metrics over HTTP, served by libmicrohttpd on a thread of its own
 * (MHD_USE_INTERNAL_POLLING_THREAD), so that a scrape, slow or stuck,
 * never holds up the event loop.  The listening socket is the TCP
 * transport's (the same address rules as listen_address; "::" takes
 * IPv4 too); MHD owns it from then on and closes it when stopped.
 */
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "internal.h"

/* Prometheus scrapes one connection at a time; leave room for a few. */
#define METRICS_MAX_CONNECTIONS	16

/* A client that sends nothing for this long is dropped, in seconds. */
#define METRICS_IDLE_TIMEOUT	10

#define METRICS_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result metrics_respond(struct MHD_Connection *conn,
				       unsigned int status, char *body,
				       size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? METRICS_CONTENT_TYPE :
				"text/plain; charset=utf-8");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A short text answer: 404, 405, 500. */
static enum MHD_Result metrics_error(struct MHD_Connection *conn,
				     unsigned int status, const char *text)
{
	char *body = strdup(text);

	if (!body)
		return MHD_NO;
	return metrics_respond(conn, status, body, strlen(body));
}

static enum MHD_Result metrics_scrape(struct aifs_server *srv,
				      struct MHD_Connection *conn)
{
	char *body = NULL;
	size_t len = 0;
	FILE *out;
	int err;

	out = open_memstream(&body, &len);
	if (!out)
		return metrics_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     "out of memory\n");
	err = aifs_metrics_write(srv, out);
	if (fclose(out) || err) {
		free(body);
		return metrics_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     "out of memory\n");
	}
	return metrics_respond(conn, MHD_HTTP_OK, body, len);
}

/* MHD's handler of every request; a GET has no body to wait for. */
static enum MHD_Result metrics_answer(void *cls, struct MHD_Connection *conn,
				      const char *url, const char *method,
				      const char *version,
				      const char *upload_data,
				      size_t *upload_data_size, void **req_cls)
{
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return metrics_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				     "only GET\n");
	if (strcmp(url, "/metrics"))
		return metrics_error(conn, MHD_HTTP_NOT_FOUND,
				     "not found: the metrics are at /metrics\n");
	return metrics_scrape(cls, conn);
}

int aifs_metrics_http_start(struct aifs_server *srv)
{
	const struct aifs_server_config *cfg = srv->cfg;
	struct aifs_endpoint l = { .ops = &aifs_tcp_transport };
	int err;

	if (!cfg->metrics_port)
		return 0;
	err = l.ops->listen(&l, cfg->metrics_address, cfg->metrics_port);
	if (err) {
		aifs_err("metrics: cannot listen on %s port %d: %s",
			 cfg->metrics_address, cfg->metrics_port,
			 strerror(-err));
		return err;
	}
	srv->metrics.httpd = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
		metrics_answer, srv,
		MHD_OPTION_LISTEN_SOCKET, l.fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_IDLE_TIMEOUT,
		MHD_OPTION_END);
	if (!srv->metrics.httpd) {
		aifs_err("metrics: cannot start the HTTP server on %s", l.name);
		l.ops->close(&l);
		return -EIO;
	}
	aifs_info("metrics on http://%s/metrics", l.name);
	return 0;
}

void aifs_metrics_http_stop(struct aifs_server *srv)
{
	if (!srv->metrics.httpd)
		return;
	MHD_stop_daemon(srv->metrics.httpd);
	srv->metrics.httpd = NULL;
}
