/* logtime — a time a storage's log wrote, as Unix ns (logtime.c): what
 * the kinds that read their servers' logs share (gluster.c, ceph.c). */
#ifndef FL_LOGTIME_H
#define FL_LOGTIME_H

#include <stdint.h>
#include <time.h>

/* tm as read from the line (tm_year the year, tm_mon 1..12), its fraction
 * of a second in ns, and its zone (sign '+' or '-', hours and minutes east
 * of UTC).  0 when tm is not a time. */
uint64_t storage_log_ns(struct tm *tm, uint64_t frac_ns, char sign, int zone_h, int zone_m);

#endif
