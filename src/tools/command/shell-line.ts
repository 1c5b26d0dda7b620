// The argv a command runs as: the shell with one line that joins stderr to stdout (one pipe keeps
// their lines in the order they were written), closes every file descriptor but 0, 1 and 2 (whatever
// started hel may have left some open, and node passes them on: an inherited descriptor on a file
// outside the project would be a way out of the sandbox), then runs the model's command, all on the
// same line so that line numbers in the shell's messages stay the model's. Only bash can name a
// descriptor above 9; sh closes those it can name.
export function shellArgv(shell: string, command: string): string[] {
  const close = shell.endsWith("/bash")
    ? 'for __hel_fd in /dev/fd/*; do __hel_fd=${__hel_fd##*/}; [ "$__hel_fd" -gt 2 ] 2>/dev/null && eval "exec $__hel_fd>&-"; done; unset __hel_fd;'
    : "exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-;";
  return [shell, "-c", `exec 2>&1; ${close} ${command}`];
}
