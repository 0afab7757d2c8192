/* e2b_upload_gitconfig: the .git/config a box gets in place of the user's own.
 *
 * A box is not trusted with credentials, and a repository's config is where git keeps
 * them: tokens in remote URLs (https://x-access-token:ghp_...@github.com/...), CI's
 * http.<url>.extraheader = AUTHORIZATION: ..., credential helpers, cookie files, proxies
 * with passwords, sendemail.smtpPass, included files from the home directory. The upload
 * therefore never carries the file itself: it carries a config rebuilt from an allowlist.
 *
 * Kept (everything else is left out):
 *   core.*        the settings that shape the repository and the work tree (format
 *                 version, filemode, symlinks, ignorecase, autocrlf/eol, sparse checkout,
 *                 a relative hooksPath, ...); not the ones that name local programs or files
 *                 (editor, pager, sshCommand, askPass, excludesFile, fsmonitor, worktree)
 *   extensions.*  the repository format needs them
 *   remote.<n>.   url, pushurl (without user info, query or fragment), fetch, push, mirror,
 *                 tagopt, prune, pruneTags, promisor, partialCloneFilter, skip*; not proxy,
 *                 uploadpack/receivepack (commands) or anything else
 *   branch.<n>.   remote, pushRemote, merge, rebase, description (branch tracking)
 *   submodule.<n>. url (cleaned like a remote's), branch, active, shallow, ignore;
 *                 submodule.recurse, submodule.fetchJobs
 *   user.name, user.email
 *   preferences without a subsection in pull, merge, rebase, push, fetch, diff, status, log,
 *                 init, advice, color, column, commit, tag, gc, pack, index, feature, protocol,
 *                 blame, grep, am, apply, rerere, checkout — minus any name that smells of a
 *                 program, a file, a signature or a credential (gpgSign, signingKey,
 *                 *program, *command, *cmd, external, template, helper, proxy, *pass*,
 *                 *token*, *cookie*, *key*, *cert*, ssl*)
 * Left out entirely: include/includeIf (the directives and what they pulled in: their
 * targets are resolved on this machine, usually in the home directory, and hold identities
 * and credentials for other hosts), http.*, credential.*, url.*.insteadOf, sendemail.*,
 * gpg.*, lfs.*, filter.*, alias.*, and every subsection of the preference sections (merge
 * and diff drivers, textconv commands). Any kept value that holds "scheme://user@" loses
 * the user info as well, and so does a kept subsection name ([remote "https://u:T@h/x"]
 * is written as [remote "https://h/x"]: rewritten rather than dropped, since the
 * branch.<n>.remote values that name it are cleaned the same way and still match). */
#ifndef E2B_UPLOAD_GITCONFIG_H
#define E2B_UPLOAD_GITCONFIG_H

#include "core/util/error.h"

#include <stddef.h>

/* Reads the config file at path (with libgit2; included files are not followed into the
 * output) and writes the allowlisted config text to *out (malloc'd, NUL-terminated,
 * *len bytes; the caller frees and should wipe it). Errors: E2B_SUB_FILE_IO (the file
 * cannot be parsed or read), E2B_SUB_NOMEM. */
e2b_error *e2b_upload_gitconfig(const char *path, char **out, size_t *len);

/* s with the user info of every "scheme://user:password@host" in it removed (both parts:
 * tokens are often the user part), and, when s is itself an http(s) URL, without its query
 * and fragment (where signed URLs carry their signature). A new string, or NULL when out of
 * memory. scp-like "user@host:path" is left as it is (an ssh login name, not a secret). */
char *e2b_upload_gitconfig_clean_url(const char *s);

#endif
