/* logtime — a time a storage's log wrote, as Unix ns; see logtime.h. */
#include "logtime.h"

uint64_t storage_log_ns(struct tm *tm, uint64_t frac_ns, char sign, int zone_h, int zone_m)
{
    tm->tm_year -= 1900;
    tm->tm_mon -= 1;
    time_t t = timegm(tm);
    long off = (zone_h * 60L + zone_m) * 60L * (sign == '-' ? -1 : 1);
    if (t < 0 || t - off < 0)
        return 0;
    return (uint64_t)(t - off) * 1000000000ull + frac_ns;
}
