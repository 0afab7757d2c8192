/* The peer's uid (peer_uid.h): one exact-match inet_diag request for the peer's socket
 * (source = the peer's address, destination = ours), answered with its owner's uid. */
#include "core/net/peer_uid.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int e2b_peer_uid(int fd, uid_t *uid)
{
    struct sockaddr_in me, peer;
    socklen_t ml = sizeof me, pl = sizeof peer;
    if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &pl) != 0 || me.sin_family != AF_INET ||
        peer.sin_family != AF_INET)
        return -1;
    struct {
        struct nlmsghdr nh;
        struct inet_diag_req_v2 req;
    } msg = {
        .nh = {.nlmsg_len = sizeof msg, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
               .nlmsg_flags = NLM_F_REQUEST},
        .req = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = ~0u,
                .id = {.idiag_sport = peer.sin_port, .idiag_dport = me.sin_port,
                       .idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}},
    };
    msg.req.id.idiag_src[0] = peer.sin_addr.s_addr;
    msg.req.id.idiag_dst[0] = me.sin_addr.s_addr;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return -1;
    int rc = -1;
    union {
        struct nlmsghdr nh;
        char bytes[8192];
    } ans;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    struct pollfd p = {.fd = nl, .events = POLLIN};
    if (sendto(nl, &msg, sizeof msg, 0, (struct sockaddr *)&kernel, sizeof kernel) ==
            (ssize_t)sizeof msg &&
        poll(&p, 1, 1000) == 1) {
        ssize_t n = recv(nl, &ans, sizeof ans, 0);
        for (struct nlmsghdr *h = &ans.nh; n > 0 && NLMSG_OK(h, (size_t)n);
             h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
                h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
                const struct inet_diag_msg *d = NLMSG_DATA(h);
                *uid = (uid_t)d->idiag_uid;
                rc = 0;
                break;
            }
            if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
                break;
        }
    }
    close(nl);
    return rc;
}
