/* Lists DXGI adapters the plain way (IDXGIFactory1::EnumAdapters1, GetDesc1), one per line:
 *   index<TAB>name<TAB>vendor_id<TAB>device_id<TAB>dedicated_video_memory<TAB>luid
 * An oracle for `dmlrun devices` under Wine: written without the `windows` crate or any dmlrun
 * code, so the two agree only if dmlrun reports what DXGI says. */
#define COBJMACROS
#include <stdio.h>
#include <windows.h>
#include <dxgi.h>

int main(void) {
    IDXGIFactory1 *factory;
    HRESULT hr = CreateDXGIFactory1(&IID_IDXGIFactory1, (void **)&factory);
    if (FAILED(hr)) {
        fprintf(stderr, "CreateDXGIFactory1 failed: HRESULT 0x%08lX\n", (unsigned long)hr);
        return 1;
    }
    IDXGIAdapter1 *adapter;
    for (UINT i = 0; IDXGIFactory1_EnumAdapters1(factory, i, &adapter) != DXGI_ERROR_NOT_FOUND; i++) {
        DXGI_ADAPTER_DESC1 desc;
        IDXGIAdapter1_GetDesc1(adapter, &desc);
        char name[256];
        WideCharToMultiByte(CP_UTF8, 0, desc.Description, -1, name, sizeof name, NULL, NULL);
        printf("%u\t%s\t%u\t%u\t%llu\t%08lX-%08lX\n", i, name, desc.VendorId, desc.DeviceId,
               (unsigned long long)desc.DedicatedVideoMemory, (unsigned long)desc.AdapterLuid.HighPart,
               (unsigned long)desc.AdapterLuid.LowPart);
        IDXGIAdapter1_Release(adapter);
    }
    IDXGIFactory1_Release(factory);
    return 0;
}
