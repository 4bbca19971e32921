"""pytorch/examples reinforcement_learning: REINFORCE and actor-critic (torch.distributions
.Categorical, saved log-probs, normalised returns, smooth L1 on the value) on a cart-pole
written in pure Python (no gym)."""
import math
import random
from collections import namedtuple
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class CartPole:
    """gym's CartPole-v1 dynamics, reward 1 per step until the pole falls or 200 steps."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def reset(self):
        self.state = [self.rng.uniform(-0.05, 0.05) for _ in range(4)]
        self.t = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * x_acc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc
        self.state = [x, x_dot, theta, theta_dot]
        self.t += 1
        terminated = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360
        return np.array(self.state, dtype=np.float32), 1.0, terminated, self.t >= 200, {}


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class ActorCritic(nn.Module):
    def __init__(self):
        super(ActorCritic, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.action_head = nn.Linear(128, 2)
        self.value_head = nn.Linear(128, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


eps = np.finfo(np.float32).eps.item()
gamma = 0.99


def discounted(rewards):
    R, returns = 0, []
    for r in rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    return (returns - returns.mean()) / (returns.std() + eps)


def finish_episode_reinforce(policy, optimizer):
    returns = discounted(policy.rewards)
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


def finish_episode_ac(model, optimizer):
    returns = discounted(model.rewards)
    policy_losses, value_losses = [], []
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]


def run(kind, episodes=120):
    torch.manual_seed(543)
    env = CartPole(543)
    model = Policy() if kind == 'reinforce' else ActorCritic()
    optimizer = optim.Adam(model.parameters(), lr=1e-2 if kind == 'reinforce' else 3e-2)
    running_reward, first = 10, None
    for i_episode in range(1, episodes + 1):
        state, _ = env.reset()
        ep_reward = 0
        for t in range(1, 10000):
            if kind == 'reinforce':
                probs = model(torch.from_numpy(state).float().unsqueeze(0))
                m = Categorical(probs)
                action = m.sample()
                model.saved_log_probs.append(m.log_prob(action))
            else:
                probs, state_value = model(torch.from_numpy(state).float())
                m = Categorical(probs)
                action = m.sample()
                model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
            state, reward, done, truncated, _ = env.step(action.item())
            model.rewards.append(reward)
            ep_reward += reward
            if done or truncated:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        (finish_episode_reinforce if kind == 'reinforce' else finish_episode_ac)(model, optimizer)
        if i_episode % 20 == 0:
            print('{} Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
                kind, i_episode, ep_reward, running_reward))
    return running_reward


if __name__ == '__main__':
    for kind in ('reinforce', 'actor_critic'):
        assert run(kind) > 20, kind  # it learns: a random policy holds the pole ~20 steps
    print("OK")
