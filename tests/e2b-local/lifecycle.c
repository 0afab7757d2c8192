/* Sandbox state changes; see lifecycle.h. */
#include "lifecycle.h"
#include "process.h"
#include "runtime.h"
#include "util.h"

void lifecycle_pause_locked(struct sandbox *sb, const char *why)
{
    runtime_freeze_locked(sb, true);
    sb->frozen = sb->holder_pid > 0;
    sb->state = SB_PAUSED;
    sandbox_log_locked(sb, "info", why);
    sandbox_save_locked(sb);
}

void lifecycle_resume_locked(struct sandbox *sb)
{
    if (sb->frozen)
        runtime_freeze_locked(sb, false);
    sandbox_log_locked(sb, "info", sb->frozen ? "sandbox resumed" : "sandbox resumed (cold: no process kept)");
    sb->frozen = false;
    sb->state = SB_RUNNING;
    sandbox_save_locked(sb);
}

void lifecycle_kill_locked(struct sandbox *sb, const char *why)
{
    log_line("sandbox %s killed: %s", sb->id, why);
    runtime_kill_locked(sb);
    sandbox_bury_locked(sb);
    sandbox_delete_files(sb->id);
}

void lifecycle_tick(void)
{
    static int64_t last_idle_check;
    bool check_idle = mono_ms() - last_idle_check >= 1000;
    if (check_idle)
        last_idle_check = mono_ms();
    pthread_mutex_lock(&g_lock);
    int64_t now = now_ms();
    size_t n;
    struct sandbox **all = sandbox_all_locked(&n);
    for (size_t i = 0; i < n; i++) {
        struct sandbox *sb = all[i];
        if (sb->procs)
            procs_enforce_deadlines_locked(sb);
        if (sb->holder_pid > 0 && sb->state == SB_RUNNING && check_idle)
            runtime_reap_idle_locked(sb);
        if (sb->state != SB_RUNNING || sb->end_ms > now)
            continue;
        if (sb->auto_pause) {
            lifecycle_pause_locked(sb, "timeout reached: sandbox paused");
        } else {
            lifecycle_kill_locked(sb, "timeout reached");
            all = sandbox_all_locked(&n); /* the array shifted */
            i--;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

void lifecycle_stop_all(void)
{
    pthread_mutex_lock(&g_lock);
    size_t n;
    struct sandbox **all = sandbox_all_locked(&n);
    for (size_t i = 0; i < n; i++) {
        /* Records already say running or paused; running ones come back paused (cold). */
        runtime_kill_locked(all[i]);
        all[i]->frozen = false;
    }
    pthread_mutex_unlock(&g_lock);
}
