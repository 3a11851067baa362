// grpc_service.proto keeps the Open Inference Protocol's wire format: every field of every message
// has the number of the published definition (kserve/open-inference-protocol,
// open_inference_grpc.proto; Triton's grpc_service.proto has the same), so clients generated from
// either talk to fpgacnn-serve. A renumbered or renamed field fails here, not in a user's client.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "grpc_service.grpc.pb.h"

namespace fpgacnn::serve {
namespace {

struct Fields {
    std::string message;  // full name, e.g. "inference.ModelInferRequest"
    std::vector<std::pair<std::string, int>> fields;
};

const std::vector<Fields>& published() {
    static const std::vector<Fields> messages = {
        {"inference.ServerLiveResponse", {{"live", 1}}},
        {"inference.ServerReadyResponse", {{"ready", 1}}},
        {"inference.ModelReadyRequest", {{"name", 1}, {"version", 2}}},
        {"inference.ModelReadyResponse", {{"ready", 1}}},
        {"inference.ServerMetadataResponse", {{"name", 1}, {"version", 2}, {"extensions", 3}}},
        {"inference.ModelMetadataRequest", {{"name", 1}, {"version", 2}}},
        {"inference.ModelMetadataResponse",
         {{"name", 1}, {"versions", 2}, {"platform", 3}, {"inputs", 4}, {"outputs", 5}, {"properties", 6}}},
        {"inference.ModelMetadataResponse.TensorMetadata", {{"name", 1}, {"datatype", 2}, {"shape", 3}}},
        {"inference.ModelInferRequest",
         {{"model_name", 1},
          {"model_version", 2},
          {"id", 3},
          {"parameters", 4},
          {"inputs", 5},
          {"outputs", 6},
          {"raw_input_contents", 7}}},
        {"inference.ModelInferRequest.InferInputTensor",
         {{"name", 1}, {"datatype", 2}, {"shape", 3}, {"parameters", 4}, {"contents", 5}}},
        {"inference.ModelInferRequest.InferRequestedOutputTensor", {{"name", 1}, {"parameters", 2}}},
        {"inference.ModelInferResponse",
         {{"model_name", 1},
          {"model_version", 2},
          {"id", 3},
          {"parameters", 4},
          {"outputs", 5},
          {"raw_output_contents", 6}}},
        {"inference.ModelInferResponse.InferOutputTensor",
         {{"name", 1}, {"datatype", 2}, {"shape", 3}, {"parameters", 4}, {"contents", 5}}},
        {"inference.InferParameter",
         {{"bool_param", 1},
          {"int64_param", 2},
          {"string_param", 3},
          {"double_param", 4},
          {"uint64_param", 5}}},
        {"inference.InferTensorContents",
         {{"bool_contents", 1},
          {"int_contents", 2},
          {"int64_contents", 3},
          {"uint_contents", 4},
          {"uint64_contents", 5},
          {"fp32_contents", 6},
          {"fp64_contents", 7},
          {"bytes_contents", 8}}},
        // Triton's system shared-memory extension (protobuf/grpc_service.proto of
        // triton-inference-server/common).
        {"inference.SystemSharedMemoryStatusRequest", {{"name", 1}}},
        {"inference.SystemSharedMemoryStatusResponse", {{"regions", 1}}},
        {"inference.SystemSharedMemoryStatusResponse.RegionStatus",
         {{"name", 1}, {"key", 2}, {"offset", 3}, {"byte_size", 4}}},
        {"inference.SystemSharedMemoryRegisterRequest",
         {{"name", 1}, {"key", 2}, {"offset", 3}, {"byte_size", 4}}},
        {"inference.SystemSharedMemoryRegisterResponse", {}},
        {"inference.SystemSharedMemoryUnregisterRequest", {{"name", 1}}},
        {"inference.SystemSharedMemoryUnregisterResponse", {}},
    };
    return messages;
}

TEST(GrpcProto, EveryFieldHasThePublishedNumber) {
    const google::protobuf::DescriptorPool* pool = google::protobuf::DescriptorPool::generated_pool();
    // Link the generated file into the pool (its descriptors register on first use).
    ASSERT_NE(inference::ModelInferRequest::descriptor(), nullptr);
    for (const Fields& expected : published()) {
        const google::protobuf::Descriptor* message = pool->FindMessageTypeByName(expected.message);
        ASSERT_NE(message, nullptr) << expected.message;
        EXPECT_EQ(message->field_count(), static_cast<int>(expected.fields.size())) << expected.message;
        for (const auto& [name, number] : expected.fields) {
            const google::protobuf::FieldDescriptor* field = message->FindFieldByName(name);
            ASSERT_NE(field, nullptr) << expected.message << "." << name;
            EXPECT_EQ(field->number(), number) << expected.message << "." << name;
        }
    }
    // The raw contents are repeated bytes aligned with inputs / outputs.
    const auto* raw = inference::ModelInferRequest::descriptor()->FindFieldByName("raw_input_contents");
    EXPECT_TRUE(raw->is_repeated());
    EXPECT_EQ(raw->type(), google::protobuf::FieldDescriptor::TYPE_BYTES);
}

TEST(GrpcProto, TheServiceHasTheProtocolsMethods) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            "inference.GRPCInferenceService");
    ASSERT_NE(service, nullptr);
    const std::vector<std::pair<std::string, std::string>> methods = {
        {"ServerLive", "ServerLiveRequest"},
        {"ServerReady", "ServerReadyRequest"},
        {"ModelReady", "ModelReadyRequest"},
        {"ServerMetadata", "ServerMetadataRequest"},
        {"ModelMetadata", "ModelMetadataRequest"},
        {"ModelInfer", "ModelInferRequest"},
        {"SystemSharedMemoryStatus", "SystemSharedMemoryStatusRequest"},
        {"SystemSharedMemoryRegister", "SystemSharedMemoryRegisterRequest"},
        {"SystemSharedMemoryUnregister", "SystemSharedMemoryUnregisterRequest"},
    };
    for (const auto& [name, input] : methods) {
        const google::protobuf::MethodDescriptor* method = service->FindMethodByName(name);
        ASSERT_NE(method, nullptr) << name;
        EXPECT_EQ(method->input_type()->name(), input);
        EXPECT_FALSE(method->client_streaming() || method->server_streaming()) << name;
    }
}

}  // namespace
}  // namespace fpgacnn::serve
