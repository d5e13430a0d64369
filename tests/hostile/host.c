/* Asks what it may not know of the machine it runs on: its host name (uname: it sees "koth" where
   the sandbox can give it a name of its own; @HOSTNAME@ is what the test expects, empty where it
   cannot), the load, memory and uptime (sysinfo), its file systems' free space (statfs). It
   learned something (1) if any of them answers. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
static int learned(void) {
    struct utsname names;
    const char *expected = "@HOSTNAME@";
    if (uname(&names) == 0 && expected[0] && strcmp(names.nodename, expected) != 0) return 1;
    struct sysinfo machine;
    if (sysinfo(&machine) == 0) return 1;
    struct statfs space;
    if (statfs(".", &space) == 0 || statfs("/", &space) == 0) return 1;
    return 0;
}
