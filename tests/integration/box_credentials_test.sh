#!/usr/bin/env bash
# The box gets no credentials (issue 13, defect 1): a project whose .git/config carries a
# token in a remote URL, a CI extraheader, credential helpers, a cookie file, a proxy
# password, an SMTP password, an insteadOf with a token and an include of a file in the home
# directory, and whose .git holds a credentials file and a FETCH_HEAD with a token, is
# uploaded with `--up` to e2b-local. Then: no marker of any of them is anywhere under the
# sandbox's root; the box's .git/config keeps what the agent needs (the remote without user
# info, branch tracking, core settings, user name) and git works there; the user's own
# .git/config is byte-identical.
. "$(dirname "$0")/../lib/lib.sh"
. "$E2B_TUI_ROOT/tests/lib/e2b_local.sh"
. "$E2B_TUI_ROOT/tests/lib/box.sh"
box_setup || t_finish
g() { git -C "$BOX_REPO" "$@"; }

g remote add origin "https://x-access-token:ghp_TOKENMARK1@github.com/org/repo.git"
g config remote.origin.pushurl "https://PUSHMARK10@github.com/org/repo.git"
g config remote.origin.proxy "http://proxyuser:PROXYMARK4@proxy.invalid:3128"
g config branch.main.remote origin
g config branch.main.merge refs/heads/main
g config http.https://github.com/.extraheader "AUTHORIZATION: basic EXTRAHDRMARK2"
g config http.cookieFile "$T_TMP/COOKIEMARK3"
g config credential.helper "store --file=.git/credentials"
g config credential.https://github.com.username "CREDUSERMARK11"
g config sendemail.smtpPass "SMTPMARK5"
g config url."https://u:INSTEADMARK7@github.com/".insteadOf "https://github.com/"
g config core.sshCommand "ssh -i $HOME/.ssh/SSHKEYMARK12"
g config user.signingKey "SIGNMARK13"
g config pull.rebase true
printf '[credential]\n\thelper = INCLUDEMARK6\n[user]\n\temail = INCLUDEMARK6@example.com\n' \
    >"$HOME/.gitconfig-secret"
g config include.path "$HOME/.gitconfig-secret"
g config includeIf."gitdir:$BOX_REPO/".path "$HOME/.gitconfig-secret"
printf 'https://user:CREDFILEMARK8@github.com\n' >"$BOX_REPO/.git/credentials"
printf '%s\t\tbranch %s of https://FETCHHEADMARK9@github.com/org/repo\n' \
    "$(g rev-parse HEAD)" main >"$BOX_REPO/.git/FETCH_HEAD"
markers="ghp_TOKENMARK1 EXTRAHDRMARK2 COOKIEMARK3 PROXYMARK4 SMTPMARK5 INCLUDEMARK6 INSTEADMARK7
CREDFILEMARK8 FETCHHEADMARK9 PUSHMARK10 CREDUSERMARK11 SSHKEYMARK12 SIGNMARK13"
cp "$BOX_REPO/.git/config" "$T_TMP/config.before"
# the agent's view of the config must come from the box alone
t_ok "the config names the include (sanity)" grep -q gitconfig-secret "$BOX_REPO/.git/config"

box_tui --up creds
box_rc "up of a project with credentials in .git exits 0" 0 || t_abort "the box did not come up"
id=$(box_sandbox_of creds)
root=$(box_root "$id")
boxgit=$root$BOX_REPO/.git
t_ok "the box has a .git/config" test -f "$boxgit/config"
for m in $markers; do
    t_ok "no $m anywhere in the box" sh -c "! grep -rqaF '$m' '$root'"
done
t_ok "no .git/credentials in the box" test ! -e "$boxgit/credentials"
t_ok "no FETCH_HEAD in the box" test ! -e "$boxgit/FETCH_HEAD"
bg() { git --git-dir="$boxgit" --work-tree="$root$BOX_REPO" "$@"; }
export GIT_CONFIG_NOSYSTEM=1
t_eq "the box keeps the remote, without user info" "$(bg config --get remote.origin.url)" \
    "https://github.com/org/repo.git"
t_eq "the push URL without user info" "$(bg config --get remote.origin.pushurl)" \
    "https://github.com/org/repo.git"
t_eq "the box keeps the fetch refspec" "$(bg config --get remote.origin.fetch)" \
    "+refs/heads/*:refs/remotes/origin/*"
t_eq "the box keeps branch tracking" "$(bg config --get branch.main.remote) $(bg config --get branch.main.merge)" \
    "origin refs/heads/main"
t_eq "the box keeps core.filemode" "$(bg config --get core.filemode)" "$(g config --get core.filemode)"
t_eq "the box keeps core.repositoryformatversion" "$(bg config --get core.repositoryformatversion)" 0
t_eq "the box keeps user.name" "$(bg config --get user.name)" "Fixture Author"
t_eq "the box keeps pull.rebase" "$(bg config --get pull.rebase)" true
t_eq "no http, credential, url, include or sendemail section in the box" \
    "$(bg config --list --local | grep -Eic '^(http|credential|url|include|includeif|sendemail)\.')" 0
t_eq "git in the box sees the same status" "$(bg status --porcelain -uall 2>&1)" \
    "$(g status --porcelain -uall)"
t_ok "the user's .git/config is byte-identical" cmp -s "$T_TMP/config.before" "$BOX_REPO/.git/config"
box_tui --kill creds
box_rc "kill exits 0" 0
t_finish
