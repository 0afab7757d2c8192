/* Which local user holds the other end of a loopback TCP connection: the kernel's socket
 * diagnostics (NETLINK_SOCK_DIAG) report the owner uid of the peer's socket, which is on
 * this machine when the connection came to a loopback address. The tunnel (tunnel.c) counts
 * connections per user with it, so that another user cannot use up the owner's share. */
#ifndef E2B_PEER_UID_H
#define E2B_PEER_UID_H

#include <sys/types.h>

/* The uid of the process that owns the peer's end of the accepted IPv4 connection fd.
 * Returns 0, or -1 when the kernel does not say (no sock_diag, the peer is gone). */
int e2b_peer_uid(int fd, uid_t *uid);

#endif
