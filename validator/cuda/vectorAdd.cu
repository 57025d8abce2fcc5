// kgpu's CUDA sample for the validator's sample pods: adds two vectors on the GPU and checks the result on
// the host, printing "Test PASSED" (what the validator looks for) like NVIDIA's cuda-samples vectorAdd.
// Written for kgpu; build it with validator/cuda/Containerfile (nvcc in a CUDA devel image).
//
// Exit codes: 0 passed; 1 a CUDA call failed (the message names it); 2 a wrong result.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s failed (error code %s)!\n", #call, cudaGetErrorString(err_)); \
            std::printf("%s failed (error code %s)!\n", #call, cudaGetErrorString(err_));       \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

int main() {
    const int n = 50000;
    const size_t bytes = n * sizeof(float);
    std::printf("[Vector addition of %d elements]\n", n);

    float *a = static_cast<float *>(std::malloc(bytes));
    float *b = static_cast<float *>(std::malloc(bytes));
    float *c = static_cast<float *>(std::malloc(bytes));
    if (a == nullptr || b == nullptr || c == nullptr) {
        std::printf("Failed to allocate host vectors!\n");
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 1000) / 1000.0f;
        b[i] = static_cast<float>((i * 7) % 1000) / 1000.0f;
    }

    int devices = 0;
    CHECK(cudaGetDeviceCount(&devices));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("Device 0: %s (compute capability %d.%d), %d device(s) visible\n", prop.name, prop.major,
                prop.minor, devices);

    float *dA = nullptr, *dB = nullptr, *dC = nullptr;
    CHECK(cudaMalloc(&dA, bytes));
    CHECK(cudaMalloc(&dB, bytes));
    CHECK(cudaMalloc(&dC, bytes));
    std::printf("Copy input data from the host memory to the CUDA device\n");
    CHECK(cudaMemcpy(dA, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, b, bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    std::printf("CUDA kernel launch with %d blocks of %d threads\n", blocks, threads);
    vectorAdd<<<blocks, threads>>>(dA, dB, dC, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::printf("Copy output data from the CUDA device to the host memory\n");
    CHECK(cudaMemcpy(c, dC, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        if (std::fabs(a[i] + b[i] - c[i]) > 1e-5f) {
            std::printf("Result verification failed at element %d!\n", i);
            return 2;
        }
    }

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    std::free(a);
    std::free(b);
    std::free(c);
    std::printf("Test PASSED\n");
    std::printf("Done\n");
    return 0;
}
