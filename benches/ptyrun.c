/* Runs argv[1..] on a fresh 200x60 pseudo-terminal, drains its output, sends no input,
   and exits with its status. */
#include <pty.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: ptyrun PROGRAM [ARGS...]\n"); return 2; }
  struct winsize size = {.ws_row = 60, .ws_col = 200};
  int master;
  pid_t pid = forkpty(&master, NULL, NULL, &size);
  if (pid < 0) { perror("forkpty"); return 2; }
  if (pid == 0) { execvp(argv[1], argv + 1); perror("execvp"); _exit(127); }
  char buffer[65536];
  while (read(master, buffer, sizeof buffer) > 0) {}
  int status;
  if (waitpid(pid, &status, 0) < 0) return 2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
