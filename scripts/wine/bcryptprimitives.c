/* A stand-in bcryptprimitives.dll for Wine 8 (Debian 12), which lacks it.
 *
 * Rust's standard library (1.78+) draws randomness from bcryptprimitives.dll!ProcessPrng, so a
 * Rust Windows binary fails to start under Wine 8 with c0000135 (DLL not found). Placed next to
 * dmlrun.exe, this DLL answers ProcessPrng from advapi32's SystemFunction036 (RtlGenRandom),
 * which Wine has always had. Newer Wine ships the real DLL; Windows always has it. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
