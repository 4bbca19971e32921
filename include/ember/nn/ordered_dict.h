// OrderedDict: a map that keeps insertion order (torch::OrderedDict), as
// Module::named_parameters() and friends return. Items have key() and value().
//
//   for (auto& item : net->named_parameters()) std::cout << item.key() << "\n";
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  // key_description names keys in errors ("Parameter", "Module", ...).
  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}

  // Raises ValueError if the key is present already.
  Value& insert(Key key, Value value) {
    EMBER_CHECK_VALUE(!contains(key), key_description_, " '", key, "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  // Inserts or overwrites.
  Value& insert_or_assign(Key key, Value value) {
    if (Value* v = find(key)) return *v = std::move(value);
    return insert(std::move(key), std::move(value));
  }
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  // Raises IndexError for a key that is not present.
  Value& operator[](const Key& key) {
    Value* v = find(key);
    EMBER_CHECK_INDEX(v, key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const {
    const Value* v = find(key);
    EMBER_CHECK_INDEX(v, key_description_, " '", key, "' is not defined");
    return *v;
  }
  Item& operator[](size_t index) { return items_.at(index); }
  const Item& operator[](size_t index) const { return items_.at(index); }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const Item& i : items_) out.push_back(i.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    for (const Item& i : items_) out.push_back(i.value());
    return out;
  }
  const std::vector<Item>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }

  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
