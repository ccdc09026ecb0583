* ·B
float4e2m1