#include "service/executable_cache.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace service {
namespace {

CachedExecutable Entry(const std::string& key, int64_t bytes) {
  CachedExecutable entry;
  entry.key = key;
  entry.bytes = bytes;
  return entry;
}

TEST(ExecutableCacheTest, OneEntryPerKeyBehindAnUnguessableHandle) {
  ExecutableCache cache(8, 1000);
  std::shared_ptr<const CachedExecutable> a = cache.Insert(Entry("a", 10));
  EXPECT_NE(a->handle, 0u);
  EXPECT_EQ(cache.Lookup("a"), a);
  EXPECT_EQ(cache.Get(a->handle), a);
  // A second insert of the key (a racing compile) gets the first entry.
  EXPECT_EQ(cache.Insert(Entry("a", 10)), a);
  std::shared_ptr<const CachedExecutable> b = cache.Insert(Entry("b", 10));
  EXPECT_NE(b->handle, a->handle);
  EXPECT_EQ(cache.Lookup("missing"), nullptr);
  EXPECT_EQ(cache.Get(12345), nullptr);
  EXPECT_EQ(cache.stats().entries, 2);
  EXPECT_EQ(cache.stats().bytes, 20);
}

TEST(ExecutableCacheTest, EvictsLeastRecentlyUsedByCount) {
  ExecutableCache cache(2, 1000);
  auto a = cache.Insert(Entry("a", 1));
  auto b = cache.Insert(Entry("b", 1));
  cache.Get(a->handle);  // a is now the most recent
  auto c = cache.Insert(Entry("c", 1));
  EXPECT_EQ(cache.Lookup("b"), nullptr);
  EXPECT_EQ(cache.Lookup("a"), a);
  EXPECT_EQ(cache.Lookup("c"), c);
  EXPECT_EQ(cache.stats().evictions, 1);
  // An evicted entry stays alive for whoever still holds it.
  EXPECT_EQ(b->key, "b");
}

TEST(ExecutableCacheTest, EvictsByBytesButKeepsTheNewest) {
  ExecutableCache cache(100, 100);
  cache.Insert(Entry("a", 40));
  cache.Insert(Entry("b", 40));
  cache.Insert(Entry("c", 40));  // 120 > 100: a goes
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  EXPECT_EQ(cache.stats().bytes, 80);
  // An entry larger than the whole budget is still kept (alone).
  auto huge = cache.Insert(Entry("huge", 500));
  EXPECT_EQ(cache.Lookup("huge"), huge);
  EXPECT_EQ(cache.stats().entries, 1);
  EXPECT_EQ(cache.stats().evictions, 3);
}

TEST(ExecutableCacheTest, RemoveForgetsTheHandle) {
  ExecutableCache cache(8, 1000);
  auto a = cache.Insert(Entry("a", 5));
  EXPECT_TRUE(cache.Remove(a->handle));
  EXPECT_FALSE(cache.Remove(a->handle));
  EXPECT_EQ(cache.Get(a->handle), nullptr);
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  EXPECT_EQ(cache.stats().bytes, 0);
}

}  // namespace
}  // namespace service
}  // namespace tessera
