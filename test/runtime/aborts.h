/* Death tests for the runtime's assert()s, which its unit tests build on
 * (test/runtime/CMakeLists.txt): runs `breaks` in a child process, which
 * must die of a failed assert (abort). Without the asserts the child
 * returns and the check fails, so this also tells that they are on. */
#ifndef PBC_TEST_ABORTS_H
#define PBC_TEST_ABORTS_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static bool aborts(void (*breaks)(void)) {
  fflush(stdout); /* or the child would print the parent's buffer again */
  pid_t pid = fork();
  if (pid == 0) {
    /* The assert's message is the expected outcome, not news for the log. */
    if (freopen("/dev/null", "w", stderr) == NULL) _exit(2);
    breaks();
    _exit(0);
  }
  int status;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
         WTERMSIG(status) == SIGABRT;
}

#endif /* PBC_TEST_ABORTS_H */
